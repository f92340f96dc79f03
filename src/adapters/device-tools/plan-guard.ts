import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { Approvals } from '../../core/approvals/approvals';
import { shortHash } from '../../core/approvals/lines';
import type { DeviceTools } from '../../core/changes/device-contract';
import type { Incidents } from '../../core/incidents/service';
import type { PlanApply } from '../../core/changes/plan-apply';
import { entries } from '../../core/events/timeline-entries';
import { errorText } from '../../core/error-body';

export interface PlanGuardDeps {
  incidents: Incidents;
  approvals: Pick<Approvals, 'claim'>;
  upstream?: DeviceTools;
  plans?: Pick<PlanApply, 'apply' | 'started'>;
  within?(incidentId: string): Promise<number>;
  durable?(): Promise<void>;
  logger: Logger;
  refuse(incidentId: string, tool: string, reason: string, detail: Record<string, unknown>): CallToolResult;
  /** Why a device takes no configuration now (quarantined), if it does not. */
  quarantineOf(device: string): Promise<string | undefined>;
  /** True when the error says nothing reached the device (the approval still stands). */
  nothingWasSent(error: unknown): boolean;
}

const ok = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });
const err = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/**
 * `config_cli` for an approved plan: the approval is claimed once, every device takes its approved
 * lines provisionally, in order, each only on the configuration its preview read; a device that
 * refuses or fails has every device changed before it put back and read back (plan-apply.ts).
 */
export async function applyPlanCall(deps: PlanGuardDeps, incidentId: string, plan: Array<{ device: string; commands: string[] }>): Promise<CallToolResult> {
  const { incidents, logger } = deps;
  const detail = { plan: plan.map((e) => e.device) };
  const incident = incidents.get(incidentId);
  if (!incident) return deps.refuse(incidentId, 'config_cli', `unknown incident ${incidentId}`, detail);
  if (!deps.upstream || !deps.plans || !deps.within) return deps.refuse(incidentId, 'config_cli', 'a plan needs the device tool server and confirmed apply on the relay (DEVICE_MCP_URL or DEVICE_INVENTORY)', detail);
  for (const entry of plan) {
    const held = await deps.quarantineOf(entry.device);
    if (held) return deps.refuse(incidentId, 'config_cli', `the plan's device ${entry.device}: ${held}`, detail);
  }
  const claimed = deps.approvals.claim(incidentId, incident.device_hostname, [], plan);
  if (!claimed.ok) return deps.refuse(incidentId, 'config_cli', claimed.reason, detail);
  if (deps.durable) {
    try {
      await deps.durable();
    } catch (error) {
      claimed.claim.release(errorText(error));
      return deps.refuse(incidentId, 'config_cli', `the claim on the approval could not be recorded (${errorText(error)}): nothing was sent; the approval still stands, try again`, detail);
    }
  }
  const request = incidents.get(incidentId)?.approval_request;
  const sha = request?.lines_sha256 ?? '';
  // What is sent is the approval's: its devices and lines, each on the configuration its preview read.
  const steps = (claimed.claim.plan ?? []).map((e, i) => {
    const fingerprint = request?.plan?.[i]?.preview?.fingerprint?.sha256;
    return { device: e.device, commands: [...e.commands], expect: fingerprint ? { expectConfigSha256: fingerprint } : {} };
  });
  let applied: Awaited<ReturnType<PlanApply['apply']>>;
  try {
    applied = await deps.plans.apply(incidentId, steps, await deps.within(incidentId));
  } catch (error) {
    claimed.claim.failed(errorText(error));
    throw error;
  }
  if (!applied.ok) {
    if (applied.changedBefore === 0 && deps.nothingWasSent(applied.error)) claimed.claim.release(applied.reason);
    else claimed.claim.failed(`the plan failed on ${applied.failed_device}: ${applied.reason}`);
    const back = applied.put_back.map((c) => `${c.device} ${c.state.replace('_', ' ')}`).join(', ');
    incidents.record(incidentId, entries.deviceConfigFailed, `The plan failed on ${applied.failed_device}: ${applied.reason.slice(0, 300)}`, { device: applied.failed_device, commands: steps.find((s) => s.device === applied.failed_device)?.commands ?? [], plan: steps.map((s) => s.device), reached: applied.changedBefore > 0 });
    return err(`The plan was NOT applied: ${applied.failed_device} refused or failed (${applied.reason}). ${back ? `Put back and read back: ${back}.` : 'No other device had been changed.'}`);
  }
  claimed.claim.applied(applied.output);
  for (const s of steps) incidents.record(incidentId, entries.deviceConfigApplied, `Applied on ${s.device} (plan ${shortHash(sha)}): ${s.commands.join(' / ')}`, { device: s.device, commands: s.commands });
  logger.info({ incident_id: incidentId, devices: steps.map((s) => s.device) }, 'approved plan applied');
  deps.plans.started(incidentId, applied.changes, sha);
  const until = applied.changes.map((c) => `${c.device} until ${c.deadline}`).join(', ');
  return ok(`${applied.output}\n\nThe plan is provisional on every device (${until}): the relay confirms it when every device's post-check passes (or a person confirms it); otherwise every device is put back. Go on with the RAW's next steps.`);
}
