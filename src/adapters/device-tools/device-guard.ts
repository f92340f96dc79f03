import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Approvals } from '../../core/approvals/approvals';
import type { Claim } from '../../core/approvals/types';
import { shortHash } from '../../core/approvals/lines';
import { DeviceToolError, type DeviceTools } from '../../core/changes/device-contract';
import type { Incidents } from '../../core/incidents/service';
import { checkExec } from './device-policy';
import { leftUnknown } from '../../core/changes/device-failure';
import type { ConfirmedApply } from '../../core/changes/confirmed-apply';
import { quarantineLine, type QuarantineEntry } from '../../core/quarantine/entry';
import { traceToolCalls } from '../telemetry/traced-tools';
import { approvedFingerprint, mismatchOf, recordMatch, recordMismatch } from '../../core/changes/fingerprint-check';
import type { PlanApply } from '../../core/changes/plan-apply';
import { applyPlanCall } from './plan-guard';
import type { FoundDevice } from '../../runbooks/plan-devices';
import { entries } from '../../core/events/timeline-entries';
import { errorText } from '../../core/error-body';

export interface DeviceGuardDeps {
  incidents: Incidents;
  approvals: Pick<Approvals, 'claim'>;
  /** The real device tool server (DEVICE_MCP_URL); absent: every call is refused with why. */
  upstream?: DeviceTools;
  /** Rendered read-only commands of the incident's RAW, for strict mode. */
  strictAllowList(incidentId: string): Promise<string[]>;
  /** Told of every device call that went through, to show where the run is in its RAW. */
  progress?(incidentId: string, call: string | string[]): Promise<void>;
  /**
   * Makes the claim durable before the device is called (a store that writes behind: the team
   * relay's PostgreSQL). A crash after the call must find the claim, never an unspent approval.
   */
  durable?(): Promise<void>;
  /**
   * Confirmed apply: every change goes on provisionally and is confirmed by the post-check or a
   * person, else the device tool server puts the configuration back (src/core/changes/confirmed-apply.ts).
   */
  confirmed?: { within(incidentId: string): Promise<number>; started: ConfirmedApply['started']; plans?: Pick<PlanApply, 'apply' | 'started'> };
  /** The other devices the incident's RAW lets its plan read and change (found from the alert and the inventory). */
  planDevices?(incidentId: string): Promise<FoundDevice[]>;
  /** The device's quarantine now: no configuration reaches a quarantined device, whatever was approved. */
  quarantined?(device: string): Promise<QuarantineEntry | undefined>;
  /** A change that reached the device and failed part-way, with no read-back showing it put back: what the device holds is not known (the quarantine). */
  unsure?(incidentId: string, device: string, why: string): Promise<void>;
  logger: Logger;
}

const ok = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });
const err = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });
const excerpt = (s: string, n = 500) => (s.length > n ? `${s.slice(0, n)}…` : s);

/**
 * Refusals the device tool server gives before it sends anything to the device (an unknown name, a
 * line its grammar refuses, a host key or login that fails at connect): the approval still stands.
 * Read from the failure's structured `reached`, never from its text.
 */
export function nothingWasSent(error: unknown): boolean {
  return error instanceof DeviceToolError && !error.failure.reached;
}

/** A failed change that reached the device and left it in a state nobody knows (device-failure.ts: leftUnknown). */
const outcomeUnknown = (error: unknown): boolean => error instanceof DeviceToolError && leftUnknown(error.failure);

type Refuse = (incidentId: string, tool: string, reason: string, detail: Record<string, unknown>) => CallToolResult;

/** What the guard's tools share: its deps, and how it refuses and reads a quarantine. */
interface GuardContext {
  deps: DeviceGuardDeps;
  refuse: Refuse;
  quarantineOf(device: string): Promise<string | undefined>;
}

/** A refusal: on the incident's timeline (if it has one) and in the log, answered as the guard's own words. */
function refuser({ incidents, logger }: DeviceGuardDeps): Refuse {
  return (incidentId, tool, reason, detail) => {
    // An invented incident id has no timeline to write to; the log keeps the attempt.
    if (incidents.get(incidentId)) incidents.record(incidentId, entries.deviceRefused, `${tool} refused: ${reason}`, { tool, reason, ...detail });
    logger.warn({ incident_id: incidentId, tool, ...detail }, `device call refused: ${reason}`);
    return err(`REFUSED by the relay's device guard: ${reason}`);
  };
}

/** Why the device takes no configuration now, if it does not: quarantined, or its quarantine could not be read. */
function quarantineReader(deps: DeviceGuardDeps) {
  return async (target: string): Promise<string | undefined> => {
    try {
      const q = await deps.quarantined?.(target);
      return q ? `${quarantineLine(q)}. Nothing was sent; an approver clears the device (POST /devices/${target}/clear, the tray or /ui) once it has been checked` : undefined;
    } catch (error) {
      return `the quarantined devices could not be read (${errorText(error)}): nothing was sent to ${target}; try again`;
    }
  };
}

/**
 * The agents' only way to the devices. The policy is enforced here, in code, not in a prompt:
 * reads on the incident's device within the RAW (strict), configuration only through the
 * approval lifecycle's claim: the approved lines, on the approved device, once.
 */
export function createDeviceGuardServer(deps: DeviceGuardDeps): McpServer {
  const server = traceToolCalls(new McpServer(
    { name: 'fault-relay-device-guard', version: '1.0.0' },
    { instructions: 'Device tools behind the fault relay: exec_cli for read-only show commands, config_cli for approved configuration only.' },
  ), deps.incidents.get);
  const ctx: GuardContext = { deps, refuse: refuser(deps), quarantineOf: quarantineReader(deps) };
  registerGuardedExec(server, ctx);
  registerGuardedConfig(server, ctx);
  return server;
}

/** exec_cli: one read-only command on the incident's device (or a device its plan found), within the RAW in strict mode. */
function registerGuardedExec(server: McpServer, { deps, refuse }: GuardContext): void {
  const { incidents, upstream } = deps;
  server.registerTool(
    'exec_cli',
    {
      title: 'Run a read-only show command',
      description: "Runs one show command on the incident's device. Strict mode: only the commands of the RAW.",
      inputSchema: {
        incident_id: z.string().min(1).max(64),
        device: z.string().min(1).max(253),
        command: z.string().min(1).max(500),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ incident_id, device, command }) => {
      const incident = incidents.get(incident_id);
      if (!incident) return refuse(incident_id, 'exec_cli', `unknown incident ${incident_id}`, { device, command });
      // A device the RAW's plan found for this incident is read like the incident's own, under its inventory name.
      const found = (await deps.planDevices?.(incident_id).catch(() => []) ?? []).find((f) => 'device' in f && f.device.toLowerCase() === device.trim().toLowerCase());
      const on = found && 'device' in found ? { ...incident, device_hostname: found.device } : incident;
      const verdict = checkExec({ incident: on, device, command, strictAllowList: incident.mode === 'strict' ? await deps.strictAllowList(incident_id) : [] });
      if (!verdict.allow) return refuse(incident_id, 'exec_cli', verdict.reason, { device, command });
      if (!upstream) return refuse(incident_id, 'exec_cli', 'no device tool server is configured on the relay (DEVICE_MCP_URL or DEVICE_INVENTORY)', { device, command });
      // The device's own name is sent (the incident's, or the plan's as found), never the model's spelling of it.
      const target = on.device_hostname;
      try {
        const output = await upstream.execCli(target, command);
        incidents.record(incident_id, entries.deviceExec, `${target}# ${command}`, { device: target, command, output: excerpt(output, 20_000) });
        await deps.progress?.(incident_id, command).catch(() => undefined);
        return ok(output);
      } catch (error) {
        const message = errorText(error);
        incidents.record(incident_id, entries.deviceError, `exec_cli failed: ${excerpt(message, 300)}`, { tool: 'exec_cli', device, command });
        return err(message);
      }
    },
  );
}

/** config_cli: the approved lines on the approved device once, or an approved plan on every device or none. */
function registerGuardedConfig(server: McpServer, ctx: GuardContext): void {
  const { deps, refuse, quarantineOf } = ctx;
  server.registerTool(
    'config_cli',
    {
      title: 'Apply approved configuration lines',
      description: 'Applies exactly the configuration lines the operator APPROVED for this incident, on its device, once. For an approved plan, give `plan` (every device with its approved lines, in order) instead of device and commands: it goes on every device or on none.',
      inputSchema: {
        incident_id: z.string().min(1).max(64),
        device: z.string().min(1).max(253).optional(),
        commands: z.array(z.string().min(1).max(500)).min(1).max(200).optional(),
        plan: z.array(z.strictObject({ device: z.string().min(1).max(253), commands: z.array(z.string().min(1).max(500)).min(1).max(200) })).min(2).max(8).optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: true },
    },
    async ({ incident_id, device, commands, plan }) => {
      if (plan) {
        if (device !== undefined || commands !== undefined) return refuse(incident_id, 'config_cli', 'give either plan, or device and commands, not both', { plan: plan.map((e) => e.device) });
        const { incidents, upstream, logger } = deps;
        return applyPlanCall({ incidents, approvals: deps.approvals, upstream, plans: deps.confirmed?.plans, within: deps.confirmed?.within, durable: deps.durable, logger, refuse, quarantineOf, nothingWasSent }, incident_id, plan);
      }
      if (device === undefined || commands === undefined) return refuse(incident_id, 'config_cli', 'give device and commands (or plan, for an approved plan)', {});
      return applyApproved(ctx, incident_id, device, commands);
    },
  );
}

/** Claims the approval, then sends its lines (provisionally with confirmed apply) on its device; the claim says how it ended. */
async function applyApproved({ deps, refuse, quarantineOf }: GuardContext, incident_id: string, device: string, commands: string[]): Promise<CallToolResult> {
  const { incidents, upstream, logger } = deps;
  const incident = incidents.get(incident_id);
  if (!incident) return refuse(incident_id, 'config_cli', `unknown incident ${incident_id}`, { device, commands });
  if (!upstream) return refuse(incident_id, 'config_cli', 'no device tool server is configured on the relay (DEVICE_MCP_URL or DEVICE_INVENTORY)', { device, commands });
  const held = await quarantineOf(incident.device_hostname);
  if (held) return refuse(incident_id, 'config_cli', held, { device, commands });
  // Claimed before the device is called: of concurrent calls, exactly one gets here.
  const claimed = deps.approvals.claim(incident_id, device, commands);
  if (!claimed.ok) return refuse(incident_id, 'config_cli', claimed.reason, { device, commands });
  if (deps.durable) {
    try {
      await deps.durable();
    } catch (error) {
      claimed.claim.release(errorText(error));
      return refuse(incident_id, 'config_cli', `the claim on the approval could not be recorded (${errorText(error)}): nothing was sent to ${device}; the approval still stands, try again`, { device, commands });
    }
  }
  const sha = incidents.get(incident_id)?.approval_request?.lines_sha256 ?? '';
  // The device must still be as previewed: the server compares before the first line (NSO's no-overwrite).
  const expected = approvedFingerprint(incidents.get(incident_id));
  const expect = expected ? { expectConfigSha256: expected } : {};
  // What is sent is the approval's, never the model's strings: the incident's own device and the
  // lines exactly as the human approved them (the model's lines only had to hash the same).
  const target = claimed.claim.device;
  const lines = [...claimed.claim.commands];
  try {
    const confirmed = deps.confirmed;
    const within = confirmed ? await confirmed.within(incident_id) : undefined;
    const applied = confirmed && within !== undefined ? await upstream.configProvisional(target, lines, within, expect) : { output: await upstream.configCli(target, lines, expect), change: undefined };
    const output = applied.output;
    claimed.claim.applied(output);
    if (expected) recordMatch(incidents, incident_id, target, expected, applied.change?.before_sha256);
    incidents.record(incident_id, entries.deviceConfigApplied, `Applied on ${target} (lines ${shortHash(sha)}): ${lines.join(' / ')}`, { device: target, commands: lines, output: excerpt(output, 20_000) });
    logger.info({ incident_id, device: target, lines: lines.length }, 'approved configuration applied');
    if (confirmed && applied.change && within !== undefined) confirmed.started(incident_id, applied.change, within);
    await deps.progress?.(incident_id, lines).catch(() => undefined);
    return ok(
      applied.change
        ? `${output}\n\nThe change is provisional until ${applied.change.deadline}: the relay confirms it when the RAW's post-check passes on the device (or a person confirms it); otherwise the device is put back. Go on with the RAW's next steps.`
        : output,
    );
  } catch (error) {
    return failedApply(deps, { incident_id, device, commands, target, expected, claim: claimed.claim }, error);
  }
}

/**
 * A change the device tool server failed: a device changed since its preview voids the approval;
 * one that never reached the device leaves it standing; one that reached it spends it, and one that
 * left the device in a state nobody knows quarantines the device. All read from the failure's
 * structured fields.
 */
async function failedApply(
  { incidents, logger, unsure }: DeviceGuardDeps,
  at: { incident_id: string; device: string; commands: string[]; target: string; expected?: string; claim: Pick<Claim, 'voided' | 'failed' | 'release'> },
  error: unknown,
): Promise<CallToolResult> {
  const { incident_id, device, commands, target, expected, claim } = at;
  const mismatch = expected ? mismatchOf(error, target, expected) : undefined;
  if (mismatch) {
    claim.voided('the device configuration changed since the preview');
    logger.warn({ incident_id, device: target }, 'approved change not applied: the device changed since its preview');
    return err(recordMismatch(incidents, incident_id, mismatch));
  }
  const message = errorText(error);
  const reached = !nothingWasSent(error);
  if (reached) claim.failed(message);
  else claim.release(message);
  if (outcomeUnknown(error)) {
    await unsure?.(incident_id, target, excerpt(message, 300)).catch((e: unknown) => logger.error({ incident_id, device: target, err: e }, 'could not quarantine a device left in an unknown state'));
  }
  incidents.record(
    incident_id,
    entries.deviceConfigFailed,
    reached
      ? `config_cli failed on ${device}; the approval is spent (device state must be checked): ${excerpt(message, 300)}`
      : `config_cli did not reach the device tool server; nothing was applied and the approval still stands: ${excerpt(message, 300)}`,
    { device, commands, reached },
  );
  return err(message);
}
