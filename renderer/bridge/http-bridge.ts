import { z } from 'zod';
import type { DeepHealth } from '../../src/relay/health-checks';
import {
  artifactGroupViewSchema,
  directPromptInputSchema,
  directPromptResponseSchema,
  sessionLogResponseSchema,
  settingFieldSchema,
  type ArtifactGroupViewBody,
  type SettingFieldBody,
} from '../../src/relay/routes/ui-schemas';
import type { ArtifactGroupView, Bridge, DecideOutcome, DirectPromptInput, SettingField, UiEvent } from './contract';
import { actionDoneWords } from '../../src/core/incidents/incident-handling';
import { incidentDetailSchema, incidentSummarySchema, parseUiEvent, UI_EVENT_NAMES } from './ui-event-schema';
import { errorOf, errorText } from '../../src/core/error-body';

// The relay's schemas and the Bridge contract must describe the same shapes.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const contractMatches: [
  Same<ArtifactGroupViewBody, ArtifactGroupView>,
  Same<SettingFieldBody, SettingField>,
  [DirectPromptInput] extends [z.input<typeof directPromptInputSchema>] ? true : false,
] = [true, true, true];
void contractMatches;

export const READ_ONLY_MESSAGE = 'This browser view is read-only: sign in as an approver (the link npm run relay prints, or /ui?token=<your personal token>) to approve or deny here.';
const SETTINGS_READ_ONLY = 'Settings cannot be changed from the browser: set the environment variables and restart the relay.';

/** `/health/deep` answers 503 with the same body when a check fails; the shape is checked loosely. */
const deepHealthSchema = z.custom<DeepHealth>(
  (v) => typeof v === 'object' && v !== null && ['ok', 'degraded'].includes((v as DeepHealth).status) && typeof (v as DeepHealth).checks === 'object',
  'not a /health/deep answer',
);

export class RelayHttpError extends Error {
  override readonly name = 'RelayHttpError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface HttpBridgeDeps {
  /** The relay's origin, e.g. `http://127.0.0.1:8080`; the page's own by default. */
  baseUrl: string;
  fetch: typeof fetch;
  /** EventSource constructor; the browser's. Cookies go along (same origin). */
  EventSource: typeof EventSource;
  writeClipboard: (text: string) => Promise<void>;
  /** Reports a frame that did not fit its schema or a lost stream; default console. */
  onStreamProblem?: (message: string) => void;
  /** Signed in as an approver (`/ui/api/me`): Approve/Deny are offered; the relay still checks who on every decision. */
  canDecide?: boolean;
}

/** `/ui/api/me`: who this browser is signed in as. */
export const uiMeSchema = z.object({ signed_in: z.boolean(), can_decide: z.boolean(), name: z.string().optional(), role: z.string().optional() });

const recordedBodySchema = z.object({ message: z.string() });
const acceptedBodySchema = z.object({ standing: z.string().optional() });
const decidedBodySchema = z.object({ decided: z.object({ by: z.string(), channel: z.string(), at: z.string(), decision: z.string() }) });
const staleBodySchema = z.object({ request_id: z.string(), pending_request_id: z.string().nullable() });

async function errorMessage(res: Response): Promise<string> {
  try {
    const message = errorOf(await res.json())?.message;
    if (message) return message;
  } catch {
    /* not JSON */
  }
  if (res.status === 401) return 'The relay wants its secret: open /ui?token=<WEBHOOK_SECRET> once in this browser.';
  return `The relay answered ${res.status} ${res.statusText}`;
}

const pagedIncidentDetailSchema = incidentDetailSchema.extend({ timeline_total: z.number().int(), next_offset: z.number().int().nullable() });

/** The relay's origin and the two ways the bridge talks to it: a checked GET and a JSON POST, same-origin. */
function httpClient(deps: HttpBridgeDeps) {
  const url = (path: string) => new URL(path, deps.baseUrl).toString();
  return {
    url,
    async getJson<T>(path: string, schema: z.ZodType<T>, opts: { okStatuses?: number[] } = {}): Promise<T> {
      const res = await deps.fetch(url(path), { headers: { accept: 'application/json' }, credentials: 'same-origin' });
      if (!res.ok && !(opts.okStatuses ?? []).includes(res.status)) throw new RelayHttpError(res.status, await errorMessage(res));
      return schema.parse(await res.json());
    },
    postJson: (path: string, body?: unknown) =>
      deps.fetch(url(path), {
        method: 'POST',
        headers: body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json', accept: 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        credentials: 'same-origin',
      }),
  };
}
type HttpClient = ReturnType<typeof httpClient>;

/** Incidents as `/sessions` pages them: the list, older pages, and one incident with all of its timeline. */
function incidentReads(client: HttpClient): Pick<Bridge, 'listIncidents' | 'listOlder' | 'getIncident'> {
  const { getJson } = client;
  return {
    async listIncidents() {
      const map = await getJson('/sessions', z.record(z.string(), incidentSummarySchema));
      return Object.values(map);
    },
    async listOlder(cursor) {
      return getJson(`/sessions?cursor=${encodeURIComponent(cursor)}&limit=200`, z.object({ incidents: z.array(incidentSummarySchema), next_cursor: z.string().nullable() }));
    },
    // The relay pages long timelines; the view shows all of it.
    async getIncident(incidentId) {
      const path = `/sessions/${encodeURIComponent(incidentId)}`;
      const first = await getJson(path, pagedIncidentDetailSchema);
      let { timeline, next_offset: next } = first;
      while (next !== null) {
        const page = await getJson(`${path}?offset=${next}`, pagedIncidentDetailSchema);
        timeline = timeline.concat(page.timeline);
        next = page.next_offset;
      }
      const { next_offset: _n, timeline_total: _t, ...incident } = first;
      return { ...incident, timeline };
    },
  };
}

/** `/events` as UiEvents: every frame parsed by its event's schema; one that does not fit is reported and skipped. */
function eventStream(deps: HttpBridgeDeps, client: HttpClient): Bridge['subscribe'] {
  const problem = deps.onStreamProblem ?? ((m: string) => console.warn(m));
  return (onEvent: (event: UiEvent) => void) => {
    const source = new deps.EventSource(client.url('/events'), { withCredentials: true });
    for (const name of UI_EVENT_NAMES) {
      source.addEventListener(name, (event) => {
        try {
          onEvent(parseUiEvent(name, (event as MessageEvent<string>).data));
        } catch (error) {
          problem(`ignored a ${name} event that did not fit: ${errorText(error)}`);
        }
      });
    }
    return () => source.close();
  };
}

/** The relay's answer to a decision, in the Bridge's outcomes: counted, accepted, already decided, stale, or refused. */
async function decisionOutcome(res: Response): Promise<DecideOutcome> {
  if (res.status === 202) return { status: 'recorded', message: recordedBodySchema.parse(await res.json()).message };
  if (res.ok) {
    const standing = acceptedBodySchema.safeParse(await res.json().catch(() => undefined));
    return { status: 'accepted', ...(standing.success && standing.data.standing ? { standing: standing.data.standing } : {}) };
  }
  if (res.status === 404) return { status: 'unknown_incident' };
  const body: unknown = await res.clone().json().catch(() => undefined);
  const decided = decidedBodySchema.safeParse(body);
  if (res.status === 409 && decided.success) return { status: 'already_decided', ...decided.data.decided };
  const stale = staleBodySchema.safeParse(body);
  if (res.status === 409 && stale.success) return { status: 'stale_request', ...stale.data };
  return { status: 'refused', message: await errorMessage(res) };
}

/** What an approver's own session may do (the relay checks who on each): decide, keep a change, clear a device, act on an incident. */
function approverActions(deps: HttpBridgeDeps, client: HttpClient): Pick<Bridge, 'decide' | 'confirmChange' | 'clearDevice' | 'incidentAction'> {
  const { postJson } = client;
  return {
    async decide(incidentId, requestId, decision, reason) {
      if (!deps.canDecide) throw new Error(READ_ONLY_MESSAGE);
      return decisionOutcome(await postJson(`/incidents/${encodeURIComponent(incidentId)}/decision`, { request_id: requestId, decision, ...(reason ? { comment: reason } : {}) }));
    },
    async confirmChange(incidentId, changeId) {
      const res = await postJson(`/incidents/${encodeURIComponent(incidentId)}/confirm`, { change_id: changeId });
      if (!res.ok) return { status: 'refused', message: await errorMessage(res) };
      return { status: 'confirmed', outcome: z.object({ outcome: z.string() }).parse(await res.json()).outcome };
    },
    // The same route an approver's token uses; the relay checks who the session is.
    async clearDevice(device) {
      const res = await postJson(`/devices/${encodeURIComponent(device)}/clear`);
      if (!res.ok) return { status: 'refused', message: await errorMessage(res) };
      return { status: 'cleared', device: z.object({ device: z.string() }).parse(await res.json()).device };
    },
    // The API's own routes, with the person's /ui session: the relay checks who they are and answers in words.
    async incidentAction(incidentId, action) {
      const { kind, ...body } = action;
      const res = await postJson(`/incidents/${encodeURIComponent(incidentId)}/${kind}`, { ...body, channel: 'ui' });
      if (!res.ok) return { status: 'refused', message: await errorMessage(res) };
      return { status: 'done', message: actionDoneWords(action, (await res.json()) as Record<string, unknown>) };
    },
  };
}

/**
 * The Bridge over the headless relay's HTTP API, for the browser: it shows everything, decides
 * only for an approver's own session (the relay checks who on each decision), changes no setting.
 */
export function createHttpBridge(deps: HttpBridgeDeps): Bridge {
  const client = httpClient(deps);
  const { getJson } = client;
  return {
    kind: 'browser',
    canDecide: deps.canDecide ?? false,
    ...incidentReads(client),
    subscribe: eventStream(deps, client),
    health: () => getJson('/health/deep', deepHealthSchema, { okStatuses: [503] }),
    async sessionLog(incidentId) {
      const body = await getJson(`/ui/api/sessions/${encodeURIComponent(incidentId)}/log`, sessionLogResponseSchema);
      return body.markdown;
    },
    // The relay answers with the file itself; its name comes from Content-Disposition.
    async exportEvidence(incidentId, format) {
      const res = await deps.fetch(client.url(`/incidents/${encodeURIComponent(incidentId)}/evidence?format=${format}`), { credentials: 'same-origin' });
      if (!res.ok) throw new RelayHttpError(res.status, await errorMessage(res));
      const named = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1];
      return { filename: named ?? `${incidentId}-evidence.${format}`, contentType: res.headers.get('content-type') ?? 'application/octet-stream', body: await res.text() };
    },
    listArtifactGroups: () => getJson('/ui/api/artifacts', z.array(artifactGroupViewSchema)),
    async directPrompt(input: DirectPromptInput) {
      const res = await client.postJson('/ui/api/direct-prompt', input);
      if (!res.ok) throw new RelayHttpError(res.status, await errorMessage(res));
      return directPromptResponseSchema.parse(await res.json()).prompt;
    },
    copyText: (text) => deps.writeClipboard(text),
    ...approverActions(deps, client),
    getSettings: () => getJson('/ui/api/settings', z.array(settingFieldSchema)),
    saveSettings: () => Promise.reject(new Error(SETTINGS_READ_ONLY)),
  };
}
