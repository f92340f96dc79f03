import type { DecideOutcome, IncidentDetail, IncidentSummary } from '../renderer/bridge/contract';
import type { DeepHealth } from '../src/relay/health-checks';
import { artifactGroupViews } from '../src/relay/routes/ui-artifacts';
import { evidenceBundleSchema } from '../src/core/incidents/evidence-bundle';
import { renderEvidenceMarkdown } from '../src/core/incidents/evidence-markdown';
import type { RequestChannels } from './ipc/contract';
import type { Settings } from './settings';
import type { TeamClient, TeamDecision } from './team-client';
import { errorText } from '../src/core/error-body';

/** A team relay's answer to a decision, as the window and the notifications show it. */
export function teamOutcome(d: TeamDecision): DecideOutcome {
  if (d.ok && d.recorded) return { status: 'recorded', message: d.message ?? '' };
  if (d.ok) return { status: 'accepted', ...(d.standing ? { standing: d.standing } : {}) };
  if (d.code === 'already_decided' && d.decided) return { status: 'already_decided', ...d.decided };
  if (d.code === 'not_found') return { status: 'unknown_incident' };
  if (d.code === 'stale_request') return { status: 'stale_request', request_id: d.request_id ?? '', pending_request_id: d.pending_request_id ?? null };
  return { status: 'refused', message: d.message };
}

/**
 * The window's side of the Bridge in "team relay" mode: the team relay's read-only views with the
 * engineer's personal token, and decisions as that person. Headed prompts are made where the runtime
 * runs (npm run headed -- --api <team relay>), not here.
 */
export function createTeamDesktopApi(deps: { team: TeamClient; settings: Settings; clipboard: { writeText(text: string): void }; artifactsDir: string; teamUrl: string }): RequestChannels {
  const { team } = deps;
  return {
    listIncidents: async (): Promise<IncidentSummary[]> => team.incidents(),
    getIncident: (incidentId) => team.get<IncidentDetail>(`/sessions/${encodeURIComponent(incidentId)}?limit=1000`),
    async health(): Promise<DeepHealth> {
      // 503 carries the same body when a check fails: read it either way.
      try {
        return await team.get<DeepHealth>('/health/deep');
      } catch (error) {
        const problem = team.status().problem ?? errorText(error);
        return {
          status: 'degraded',
          checks: { agent_runtime: { ok: false, url: deps.teamUrl, latency_ms: 0, error: `team relay: ${problem}` }, device_mcp: { skipped: true }, messaging: { configured: false, connected: false } },
        };
      }
    },
    sessionLog: async (incidentId) => (await team.get<{ markdown: string | null }>(`/ui/api/sessions/${encodeURIComponent(incidentId)}/log`)).markdown,
    // The team relay's JSON bundle (its hashes, its redaction); the Markdown is rendered from it by the same code.
    async exportEvidence(incidentId, format) {
      const bundle = evidenceBundleSchema.parse(await team.get(`/incidents/${encodeURIComponent(incidentId)}/evidence?format=json`));
      const body = format === 'json' ? JSON.stringify(bundle, null, 2) : renderEvidenceMarkdown(bundle);
      return { filename: `${incidentId}-evidence.${format}`, contentType: format === 'json' ? 'application/json; charset=utf-8' : 'text/markdown; charset=utf-8', body };
    },
    listArtifactGroups: () => artifactGroupViews(deps.artifactsDir),
    directPrompt: () => Promise.reject(new Error(`in team relay mode the headed run is made where the runtime runs: npm run headed -- --api ${deps.teamUrl}`)),
    copyText: async (text) => deps.clipboard.writeText(text),
    decide: async (incidentId, requestId, decision, reason) => teamOutcome(await team.decide({ incident_id: incidentId, request_id: requestId, decision, ...(reason !== undefined ? { reason } : {}) })),
    async confirmChange(incidentId, changeId) {
      const r = await team.confirm(incidentId, changeId);
      return r.ok ? { status: 'confirmed', outcome: r.outcome } : { status: 'refused', message: r.message };
    },
    async clearDevice(device) {
      const r = await team.clearDevice(device);
      return r.ok ? { status: 'cleared', device: r.device } : { status: 'refused', message: r.message };
    },
    incidentAction: (incidentId, action) => team.incidentAction(incidentId, action),
    getSettings: async () => deps.settings.fields(),
    saveSettings: async (values) => deps.settings.save(values),
  };
}
