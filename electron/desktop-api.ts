import { readFile } from 'node:fs/promises';
import { ZodError } from 'zod';
import type { DecideOutcome } from '../renderer/bridge/contract';
import { policyNotice, standingWords } from '../src/core/approvals/standing';
import type { DecideResult } from '../src/core/approvals/approvals';
import { inboundAlertSchema } from '../src/adapters/alert-sources/schema';
import { changeOutcomeText } from '../src/core/incidents/change';
import { HandlingRefused, runIncidentAction } from '../src/core/incidents/incident-handling';
import { openAndRecent } from '../src/core/incidents/incident-pages';
import { publicIncident, type Incident } from '../src/core/incidents/model';
import type { DeepHealth } from '../src/relay/health-checks';
import { alertForPrompt } from '../src/relay/routes/ui';
import { promptToPaste } from '../src/relay/headed-intake';
import { artifactGroupViews } from '../src/relay/routes/ui-artifacts';
import type { RequestChannels } from './ipc/contract';
import type { RelayHost } from './relay-host';
import type { Settings } from './settings';
import { errorOf } from '../src/core/error-body';
import { desktopDecision } from './desktop-decision';

export interface DesktopApiDeps {
  host: Pick<RelayHost, 'current' | 'require' | 'failure'>;
  settings: Settings;
  clipboard: { writeText(text: string): void };
  /** The OS user: desktop decisions carry it. */
  user: string;
  artifactsDir: string;
  /** Where the relay writes an incident's session log. */
  sessionLogPath?(incident: Incident): string;
  now?: () => Date;
  /** Saved settings take effect when the relay restarts. */
  onSettingsSaved?(): void;
}

export function toDecideOutcome(result: DecideResult): DecideOutcome {
  switch (result.status) {
    case 'accepted':
      return { status: 'accepted', ...(result.standing ? { standing: standingWords(result.standing) } : {}) };
    case 'recorded':
      return { status: 'recorded', message: policyNotice(result) };
    case 'already_approved_by_you':
    case 'not_allowed_by_policy':
      return { status: 'refused', message: policyNotice(result) };
    case 'already_decided':
      return { status: 'already_decided', by: result.approval.by, channel: result.approval.channel, at: result.approval.at, decision: result.approval.decision };
    case 'not_awaiting':
      return { status: 'not_awaiting', state: result.incident.state };
    case 'stale_request':
      return { status: 'stale_request', request_id: result.request_id, pending_request_id: result.pending_request_id };
    case 'unknown_incident':
      return { status: 'unknown_incident' };
  }
}

/** What the health panel shows while the relay itself is down: the reason, as a failed check. */
const relayDown = (reason: string): DeepHealth => ({
  status: 'degraded',
  checks: {
    agent_runtime: { ok: false, url: '', latency_ms: 0, error: `the relay is not running: ${reason}` },
    device_mcp: { skipped: true },
    messaging: { configured: false, connected: false },
  },
});

/** The main process's side of the Bridge: the same relay calls the headless routes make. */
export function createDesktopApi(deps: DesktopApiDeps): RequestChannels {
  const { host } = deps;
  const now = deps.now ?? (() => new Date());
  const incident = (incidentId: string) => {
    const found = host.require().relay.incidents.get(incidentId);
    if (!found) throw new Error(`no incident ${incidentId}`);
    return found;
  };

  return {
    // Open and the newest finished, as the relay's /events snapshot: the list stays small whatever the archive holds.
    listIncidents: async () => {
      const relay = host.current()?.relay;
      return relay ? openAndRecent(relay.incidents).incidents.map(publicIncident) : [];
    },
    getIncident: async (incidentId) => ({ ...publicIncident(incident(incidentId)), timeline: await host.require().relay.incidents.loadTimeline(incidentId) }),
    async health() {
      const running = host.current();
      if (!running) return relayDown(host.failure() ?? 'it is starting');
      const secret = running.config.WEBHOOK_SECRET;
      // In-process: the same answer as GET /health/deep, without a socket.
      const res = await running.relay.app.inject({ method: 'GET', url: '/health/deep', headers: secret ? { authorization: `Bearer ${secret}` } : {} });
      return res.json<DeepHealth>();
    },
    async sessionLog(incidentId) {
      const found = incident(incidentId);
      if (!deps.sessionLogPath) return null;
      try {
        return await readFile(deps.sessionLogPath(found), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    // In-process, the same answer as GET /incidents/:id/evidence (its guard, its redaction), without a socket.
    async exportEvidence(incidentId, format) {
      const running = host.require();
      const secret = running.config.WEBHOOK_SECRET;
      const res = await running.relay.app.inject({ method: 'GET', url: `/incidents/${encodeURIComponent(incidentId)}/evidence?format=${format}`, headers: secret ? { authorization: `Bearer ${secret}` } : {} });
      if (res.statusCode !== 200) throw new Error(errorOf(res.json())?.message ?? `the relay answered ${res.statusCode}`);
      const named = /filename="([^"]+)"/.exec(String(res.headers['content-disposition'] ?? ''))?.[1];
      return { filename: named ?? `${incidentId}-evidence.${format}`, contentType: String(res.headers['content-type'] ?? 'text/plain'), body: res.body };
    },
    listArtifactGroups: () => artifactGroupViews(deps.artifactsDir),
    async directPrompt(input) {
      try {
        if (input.incident_id) throw new Error('headed incident ids are assigned by the relay: leave the incident id empty');
        // A real incident on the relay from the moment the prompt is copied: the gate knows it before anything is pasted.
        return promptToPaste(await host.require().relay.startHeaded(inboundAlertSchema.parse(alertForPrompt(input, now())), input.mode));
      } catch (error) {
        if (!(error instanceof ZodError)) throw error;
        throw new Error(`these inputs make no valid alert: ${error.issues.map((i) => `${i.path.join('.') || '(alert)'}: ${i.message}`).join('; ')}`);
      }
    },
    copyText: async (text) => deps.clipboard.writeText(text),
    decide: async (incidentId, requestId, decision, reason) => toDecideOutcome(await host.require().relay.decide(desktopDecision(deps.user, incidentId, requestId, decision, reason))),
    async confirmChange(incidentId, changeId) {
      const confirm = host.require().relay.confirm;
      if (!confirm) return { status: 'refused', message: 'this relay has no device tools: there is no change to confirm' };
      const result = await confirm({ incident_id: incidentId, change_id: changeId, who: { id: deps.user, authenticated_by: 'os_user' } });
      return result.ok ? { status: 'confirmed', outcome: changeOutcomeText(result.change) } : { status: 'refused', message: result.message };
    },
    async clearDevice(device) {
      const lifted = await host.require().relay.quarantine.clear(device, deps.user);
      return lifted ? { status: 'cleared', device: lifted.device } : { status: 'refused', message: `${device} is not quarantined: there is nothing to clear` };
    },
    // As the tray's user, the OPERATORS_FILE person whose os_user this account is.
    async incidentAction(incidentId, action) {
      const { handling } = host.require().relay;
      try {
        return await runIncidentAction(handling, incidentId, handling.desktopActor(deps.user), action, 'tray');
      } catch (error) {
        if (error instanceof HandlingRefused) return { status: 'refused', message: error.message };
        throw error;
      }
    },
    getSettings: async () => deps.settings.fields(),
    async saveSettings(values) {
      const result = deps.settings.save(values);
      if (result.ok && result.restartNeeded) deps.onSettingsSaved?.();
      return result;
    },
  };
}
