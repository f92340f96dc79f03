import type { Logger } from 'pino';
import type { Clock } from '../clock';
import { isTerminal, type Incident } from '../incidents/model';
import type { Incidents } from '../incidents/service';
import type { GateMove } from './gate-move';
import { linesSha256, shortHash } from './lines';
import { planSha256, type PlanEntry } from './plan-lines';
import type { createApprovalTimers } from './timers';
import type { ClaimResult } from './types';
import { formatTtl } from './wording';

/** One router: names compare without case or surrounding space (the inventory refuses such clashes). */
export const sameDevice = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export function createClaim(deps: {
  incidents: Incidents;
  move: GateMove;
  timers: Pick<ReturnType<typeof createApprovalTimers>, 'lapsed' | 'lapse'>;
  clock: Clock;
  logger: Logger;
  applyWindowMs: number;
  /** The change policy again at apply time (policy-recheck.ts): why the approved change may no longer go on. */
  recheck?(incident: Incident): string | undefined;
}) {
  const { incidents, move, timers, clock, logger, applyWindowMs } = deps;
  /**
   * The device guard's only way to apply configuration: the lines (by their hash) and the device
   * must be the approved ones, and the claim is stored before the device is called.
   */
  return function claim(incidentId: string, device: string, commands: string[], plan?: readonly PlanEntry[]): ClaimResult {
    const incident = incidents.get(incidentId);
    if (!incident) return { ok: false, reason: `unknown incident ${incidentId}` };
    if (isTerminal(incident.state)) return { ok: false, reason: `${incidentId} is already ${incident.state}; no configuration` };
    const request = incident.approval_request;
    if (request?.status === 'approved' && incident.application.status === 'none' && timers.lapsed(incident)) {
      timers.lapse(incidentId);
      return { ok: false, reason: `the approval lapsed: it was not applied within ${formatTtl(applyWindowMs)} of the decision (APPROVAL_APPLY_WINDOW); request a new approval` };
    }
    if (request && request.status === 'approved' && (request.plan !== undefined || plan !== undefined)) {
      const refused = planRefusal(request, plan) ?? deps.recheck?.(incident);
      if (refused) return { ok: false, reason: refused };
    } else if (request && request.status === 'approved') {
      if (!sameDevice(device, request.device)) return { ok: false, reason: `the approval covers ${request.device}, not ${device}` };
      const approvedHash = request.lines_sha256 || linesSha256(request.commands);
      if (linesSha256(commands) !== approvedHash) {
        return { ok: false, reason: `only the approved lines may be applied, verbatim and in order (lines ${shortHash(approvedHash)}): ${request.commands.join(' / ')}` };
      }
      const refused = deps.recheck?.(incident);
      if (refused) return { ok: false, reason: refused };
    }
    const at = clock.now().toISOString();
    const claimed = move(incidentId, 'claim', () => ({ application: { status: 'claimed', device: request?.device ?? device, at, error: null } }));
    if (!claimed.ok) return claimed;
    let settled = false;
    const settle = (event: 'applied' | 'release' | 'fail', error: string | null) => {
      if (settled) return;
      settled = true;
      const result = move(incidentId, event, (cur) => ({ application: { ...cur.application, at: clock.now().toISOString(), error } }));
      if (!result.ok) logger.error({ incident_id: incidentId, event }, `approval claim could not be settled: ${result.reason}`);
    };
    return {
      ok: true,
      claim: {
        device: request?.device ?? incident.device_hostname,
        commands: request?.commands ?? commands,
        ...(request?.plan ? { plan: request.plan.map((e) => ({ device: e.device, commands: e.commands })) } : {}),
        applied: () => settle('applied', null),
        release: (why) => settle('release', why),
        failed: (why) => settle('fail', why),
        voided: (why) => {
          settle('release', why);
          // Nothing was sent, and the approval no longer covers the device as it is: a new decision is needed.
          if (!move(incidentId, 'lapse', () => ({})).ok) logger.error({ incident_id: incidentId }, 'a voided approval could not be expired');
        },
      },
    };
  }
}

/** Why a plan's claim is refused: a plan against a one-device approval or the reverse, or other devices or lines than approved. */
function planRefusal(request: NonNullable<Incident['approval_request']>, plan: readonly PlanEntry[] | undefined): string | undefined {
  if (!request.plan) return `the approval covers one device (${request.device}), not a plan: call config_cli with device and commands`;
  const approved = request.plan.map((e) => e.device).join(', ');
  if (!plan) return `the approval is a plan for ${approved}: call config_cli with plan, every device's approved lines in order`;
  if (planSha256(plan) !== request.lines_sha256) {
    return `only the approved plan may be applied, every device with its lines verbatim and in order (plan ${shortHash(request.lines_sha256)} for ${approved})`;
  }
  return undefined;
}
