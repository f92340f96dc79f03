import type { Incident } from '../../core/incidents/model';
import { isTerminal } from '../../core/incidents/model';
import { checkReadOnlyCommand } from '../../runbooks/read-only-command';

export { isReadOnlyCommand } from '../../runbooks/read-only-command';

/** Whitespace and case differences are not differences for a show command. */
export const normalizeLine = (line: string) => line.trim().replace(/\s+/g, ' ').toLowerCase();

export type Verdict = { allow: true } | { allow: false; reason: string };
const refuse = (reason: string): Verdict => ({ allow: false, reason });

/**
 * Read-only commands: only on the incident's device (headed runs too: the prompt names it);
 * in strict mode only the commands the RAW names (rendered with the alert's variables);
 * hybrid allows any read-only `show`.
 */
export function checkExec(input: { incident: Incident; device: string; command: string; strictAllowList: string[] }): Verdict {
  const { incident, device, command } = input;
  if (isTerminal(incident.state)) return refuse(`${incident.incident_id} is already ${incident.state}; no more device calls`);
  if (incident.state === 'queued') return refuse(`${incident.incident_id} has not started`);
  if (device.trim().toLowerCase() !== incident.device_hostname.toLowerCase()) {
    return refuse(`${incident.incident_id} is about ${incident.device_hostname}; device tools may not touch ${device}`);
  }
  const readOnly = checkReadOnlyCommand(command);
  if (!readOnly.ok) {
    return refuse(`exec_cli runs one read-only show command (${readOnly.reason}); configuration goes through config_cli after an approval`);
  }
  if (incident.mode === 'strict') {
    const allowed = new Set(input.strictAllowList.map(normalizeLine));
    if (!allowed.has(normalizeLine(command))) {
      return refuse(`strict mode: "${command.trim()}" is not a command of the RAW for ${incident.alert_def_id}. Allowed: ${input.strictAllowList.join(' | ') || '(none)'}`);
    }
  }
  return { allow: true };
}
