import type { Incident, TimelineEntry } from '../incidents/model';
import { isTerminal } from '../incidents/model';

/** Whitespace and case differences are not differences for a router CLI. */
export const normalizeLine = (line: string) => line.trim().replace(/\s+/g, ' ').toLowerCase();

export type Verdict = { allow: true } | { allow: false; reason: string };
const refuse = (reason: string): Verdict => ({ allow: false, reason });

/** A single exec command: `show …`, one line, no command chaining. */
export function isReadOnlyCommand(command: string): boolean {
  const c = command.trim();
  return /^show\s+\S/i.test(c) && !/[\r\n;]/.test(c);
}

function sameDevice(incident: Incident, device: string): Verdict {
  return device.trim().toLowerCase() === incident.device_hostname.toLowerCase()
    ? { allow: true }
    : refuse(`${incident.incident_id} is about ${incident.device_hostname}; device tools may not touch ${device}`);
}

/**
 * Read-only commands: only on the alert's device; in strict mode only the commands
 * the RAW names (rendered with the alert's variables); hybrid allows any `show`.
 */
export function checkExec(input: { incident: Incident; device: string; command: string; strictAllowList: string[] }): Verdict {
  const { incident, device, command } = input;
  if (isTerminal(incident.state)) return refuse(`${incident.incident_id} is already ${incident.state}; no more device calls`);
  if (incident.state === 'queued') return refuse(`${incident.incident_id} has not started`);
  const dev = sameDevice(incident, device);
  if (!dev.allow) return dev;
  if (!isReadOnlyCommand(command)) {
    return refuse('exec_cli runs one read-only show command; configuration goes through config_cli after an approval');
  }
  if (incident.mode === 'strict') {
    const allowed = new Set(input.strictAllowList.map(normalizeLine));
    if (!allowed.has(normalizeLine(command))) {
      return refuse(
        `strict mode: "${command.trim()}" is not a command of the RAW for ${incident.alert_def_id}. Allowed: ${input.strictAllowList.join(' | ') || '(none)'}`,
      );
    }
  }
  return { allow: true };
}

/**
 * Configuration: only after an APPROVED decision for this incident, only on the
 * approved device, only the exact approved lines, and only once.
 */
export function checkConfig(input: { incident: Incident; device: string; commands: string[]; timeline: TimelineEntry[] }): Verdict {
  const { incident, device, commands } = input;
  if (isTerminal(incident.state)) return refuse(`${incident.incident_id} is already ${incident.state}; no configuration`);
  const approval = incident.approval;
  if (incident.state === 'awaiting_approval' || !approval) {
    return refuse('no approval yet: call relay_request_approval with the exact lines and wait for the HUMAN OPERATOR RESPONSE');
  }
  if (approval.effective !== 'APPROVED') return refuse(`the operator decision was ${approval.decision}: apply nothing and escalate`);
  const approvedDevice = incident.approval_request?.device ?? incident.device_hostname;
  if (device.trim().toLowerCase() !== approvedDevice.toLowerCase()) {
    return refuse(`the approval covers ${approvedDevice}, not ${device}`);
  }
  // Entering and leaving configuration mode is not a change, on either side: the RAW's repair lines end with `end`.
  const modeOnly = (l: string) => l !== 'configure terminal' && l !== 'end';
  const want = approval.commands.map(normalizeLine).filter(modeOnly);
  const got = commands.map(normalizeLine).filter(modeOnly);
  if (want.length !== got.length || want.some((line, i) => line !== got[i])) {
    return refuse(`only the approved lines may be applied, in order: ${approval.commands.join(' / ')}`);
  }
  const applied = input.timeline.some((e) => e.type === 'device.config_applied' && e.at >= approval.at);
  if (applied) return refuse('the approved change was already applied; a further change needs a new approval');
  return { allow: true };
}
