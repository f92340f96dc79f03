import { request } from 'undici';
import { actionDoneWords, type IncidentAction, type IncidentActionOutcome } from '../src/core/incidents/incident-handling';
import type { Logger } from 'pino';
import { parseUiEvent, UI_EVENT_NAMES, type UiEventName } from '../renderer/bridge/ui-event-schema';
import type { IncidentSummary, UiEvent } from '../renderer/bridge/contract';
import { jitteredBackoff, wait } from '../src/core/backoff';
import { systemClock } from '../src/core/clock';
import { createSseParser } from '../src/adapters/net/sse';
import { errorOf, errorOfText, errorText } from '../src/core/error-body';
import type { DecisionCommand } from '../src/core/approvals/decision-command';

/** What the team relay answered to a decision, in words for the engineer. */
export type TeamDecision =
  /** `recorded`: counted toward the change policy's requirement, not reached yet (202); `standing`: "approved: 2 of 2". */
  | { ok: true; by: string; recorded?: boolean; standing?: string; message?: string }
  | { ok: false; status: number; code: string; message: string; decided?: { decision: string; by: string; channel: string; at: string }; request_id?: string; pending_request_id?: string | null };

export interface TeamStatus {
  connected: boolean;
  /** Why not, in words the engineer can act on (a refused token, an unreachable relay). */
  problem?: string;
}

/**
 * The tray as a client of the team relay: it follows `/events` with the engineer's personal token,
 * keeps the team's incidents, and decides through `POST /incidents/:id/decision` as that person.
 * No relay or runtime runs on the laptop in this mode.
 */
export function createTeamClient(opts: { url: string; token: string; logger?: Logger; onEvent?: (event: UiEvent) => void; onStatus?: (status: TeamStatus) => void }) {
  const base = opts.url.replace(/\/$/, '');
  const auth = { authorization: `Bearer ${opts.token}` };
  const incidents = new Map<string, IncidentSummary>();
  const controller = new AbortController();
  const backoff = jitteredBackoff({ baseMs: 500, maxMs: 30_000 });
  let status: TeamStatus = { connected: false };
  const setStatus = (next: TeamStatus) => {
    status = next;
    opts.onStatus?.(next);
  };

  const apply = (event: UiEvent) => {
    if (event.type === 'snapshot') {
      incidents.clear();
      for (const i of event.incidents) incidents.set(i.incident_id, i);
    } else if ('incident' in event) {
      const current = incidents.get(event.incident.incident_id);
      // Newer wins: a reconnect's snapshot may overtake a late frame.
      if (!current || current.updated_at <= event.incident.updated_at) incidents.set(event.incident.incident_id, event.incident);
    }
    opts.onEvent?.(event);
  };

  /** One `/events` connection: frames until it ends. Throws with the relay's own reason when refused. */
  async function follow(): Promise<void> {
    const res = await request(`${base}/events`, { headers: { ...auth, accept: 'text/event-stream' }, signal: controller.signal, bodyTimeout: 0 });
    if (res.statusCode !== 200) {
      const text = await res.body.text();
      const message = (() => {
        try {
          return errorOfText(text)?.message;
        } catch {
          return undefined;
        }
      })();
      throw new Error(res.statusCode === 401 ? `the team relay refused the personal token (401): ${message ?? 'check it in Settings'}` : `the team relay answered ${res.statusCode}: ${message ?? text.slice(0, 200)}`);
    }
    setStatus({ connected: true });
    const parser = createSseParser();
    for await (const chunk of res.body) {
      for (const { event, data } of parser.push(chunk as Buffer)) {
        const name = event as UiEventName | undefined;
        if (!name || !UI_EVENT_NAMES.includes(name)) continue;
        try {
          apply(parseUiEvent(name, data));
        } catch (error) {
          opts.logger?.warn({ err: error, event: name }, 'team relay sent a frame that does not fit; skipped');
        }
      }
    }
  }

  /** Follows the stream for as long as the client runs, reconnecting with backoff (and a fresh snapshot). */
  const running = (async () => {
    for (let attempt = 0; !controller.signal.aborted; attempt++) {
      try {
        await follow();
        attempt = 0;
        if (!controller.signal.aborted) setStatus({ connected: false, problem: 'the team relay closed the stream; reconnecting' });
      } catch (error) {
        if (controller.signal.aborted) break;
        const why = errorText(error);
        setStatus({ connected: false, problem: why.startsWith('the team relay') ? why : `team relay not reachable at ${base}: ${why}` });
      }
      await wait(backoff(attempt), systemClock, controller.signal);
    }
  })();

  return {
    status: () => status,
    incidents: () => [...incidents.values()],
    pending: () => [...incidents.values()].filter((i) => i.state === 'awaiting_approval'),
    incident: (incidentId: string) => incidents.get(incidentId),
    /** A GET on the team relay with the personal token (its read-only views): JSON, or an error in words. */
    async get<T>(path: string): Promise<T> {
      const res = await request(`${base}${path}`, { headers: auth });
      const text = await res.body.text();
      if (res.statusCode !== 200) {
        const message = errorOfText(text)?.message ?? text.slice(0, 200);
        throw new Error(`the team relay answered ${res.statusCode} to ${path}: ${message}`);
      }
      return JSON.parse(text) as T;
    },
    ...teamWrites(base, auth),
    async stop(): Promise<void> {
      controller.abort();
      await running;
    },
  };
}

export type TeamClient = ReturnType<typeof createTeamClient>;

/** What the tray does on the team relay as the engineer (their personal token): decide, keep a change, clear a device, act on an incident. */
function teamWrites(base: string, auth: { authorization: string }) {
  return {
  /** A decision command as the tray builds it; the team relay knows the person by the personal token, not by the command. */
  async decide(command: Pick<DecisionCommand, 'incident_id' | 'request_id' | 'decision' | 'reason'>): Promise<TeamDecision> {
    const res = await request(`${base}/incidents/${encodeURIComponent(command.incident_id)}/decision`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ request_id: command.request_id ?? '', decision: command.decision, ...(command.reason ? { comment: command.reason } : {}) }),
    });
    const answer: unknown = await res.body.json().catch(() => ({}));
    const body = answer as {
      by?: string;
      standing?: string;
      message?: string;
      decided?: { decision: string; by: string; channel: string; at: string };
      request_id?: string;
      pending_request_id?: string | null;
    };
    const error = errorOf(answer);
    if (res.statusCode === 200) return { ok: true, by: body.by ?? '', ...(body.standing ? { standing: body.standing } : {}) };
    if (res.statusCode === 202) return { ok: true, by: '', recorded: true, message: body.message ?? body.standing ?? 'counted' };
    return {
      ok: false,
      status: res.statusCode,
      code: error?.code ?? 'error',
      message: error?.message ?? `the team relay answered ${res.statusCode}`,
      ...(body.decided ? { decided: body.decided } : {}),
      ...(error?.code === 'stale_request' ? { request_id: body.request_id, pending_request_id: body.pending_request_id ?? null } : {}),
    };
  },
  /** `POST /incidents/:id/confirm` as this person: keeps a provisional change. */
  async confirm(incidentId: string, changeId: string): Promise<{ ok: true; outcome: string } | { ok: false; message: string }> {
    const res = await request(`${base}/incidents/${encodeURIComponent(incidentId)}/confirm`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ change_id: changeId }),
    });
    const body: unknown = await res.body.json().catch(() => ({}));
    if (res.statusCode === 200) return { ok: true, outcome: (body as { outcome?: string }).outcome ?? 'confirmed' };
    return { ok: false, message: errorOf(body)?.message ?? `the team relay answered ${res.statusCode}` };
  },
  /** `POST /devices/:name/clear` as this person: lets changes reach a quarantined device again. */
  async clearDevice(device: string): Promise<{ ok: true; device: string } | { ok: false; message: string }> {
    const res = await request(`${base}/devices/${encodeURIComponent(device)}/clear`, { method: 'POST', headers: auth });
    const body: unknown = await res.body.json().catch(() => ({}));
    if (res.statusCode === 200) return { ok: true, device: (body as { device?: string }).device ?? device };
    return { ok: false, message: errorOf(body)?.message ?? `the team relay answered ${res.statusCode}` };
  },
  /** `POST /incidents/:id/<kind>` as this person, from the tray: answered in the relay's words. */
  async incidentAction(incidentId: string, action: IncidentAction): Promise<IncidentActionOutcome> {
    const { kind, ...body } = action;
    const res = await request(`${base}/incidents/${encodeURIComponent(incidentId)}/${kind}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ ...body, channel: 'tray' }) });
    const answer = (await res.body.json().catch(() => ({}))) as Record<string, unknown>;
    if (res.statusCode === 200 || res.statusCode === 202) return { status: 'done', message: actionDoneWords(action, answer) };
    return { status: 'refused', message: errorOf(answer)?.message ?? `the team relay answered ${res.statusCode}` };
  },
  };
}
