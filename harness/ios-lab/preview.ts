import type { ConfigPreview } from '../../src/runbooks/config-preview';
import { normalisedConfigLines } from '../../src/runbooks/config-fingerprint';
import type { Device } from './device';
import { groupsAsLines, parseRunningConfig, restoreCommands } from '../../src/adapters/devices/config-diff';
import { applyConfigLines } from './config-mode';
import type { Lab } from './lab';
import { refusal, type LabRefusal } from './refusal';
import { runningConfigLines } from './show-system';

const show = (p: string[]) => p.join(' > ');

/** The device's running configuration without its clock and log: what a fingerprint and a diff compare. */
export const labRunningConfig = (device: Device, config = device.config) => runningConfigLines({ ...device, config, lastChange: null }).join('\n');

/**
 * The simulated lab's dry run: the lines are applied to a copy of the device's configuration with
 * the lab's own parser, and the running configuration of the copy is compared with the live one.
 * The live device is never touched (its configuration, log and change count stay as they are).
 * The parser is the one `config` uses, so a line it refuses here is refused there too.
 */
export function labPreview(lab: Lab, hostname: string, lines: readonly string[]): { ok: true; preview: ConfigPreview } | LabRefusal {
  const device = lab.network().find(hostname.trim());
  if (!device) return refusal('unknown_device', `% Unknown host "${hostname}": not in the device inventory`);
  if (device.faults.unreachable) return refusal('unreachable', `% Connection timed out; remote host not responding: ${device.config.hostname} (${device.inventory.mgmt_ip}) port 22`);
  const name = device.config.hostname;
  const refused = (problem: string) => ({ ok: true as const, preview: { device: name, accepted: false, method: 'config_session' as const, added: [], removed: [], problems: [problem] } });
  if (lines.length === 0) return refused('% No configuration lines given');
  if (lines.some((l) => /[\r\n]/.test(l))) return refused('% One command per line: a line contains a line break');
  const draft = structuredClone(device.config);
  const result = applyConfigLines(draft, lines);
  if (!result.ok) return refused(result.error ?? 'the lab refused the lines');
  // Only the configuration differs between the two renderings: the copy has the live device's clock and log.
  const render = (config: typeof draft) => labRunningConfig(device, config);
  const before = parseRunningConfig(render(device.config)).map(show);
  const after = parseRunningConfig(render(draft)).map(show);
  // What the relay would apply to put the configuration before back (the restore a rollback runs).
  const rollback = { method: 'restore' as const, lines: groupsAsLines(restoreCommands(render(device.config), render(draft))) };
  const had = new Set(before);
  const has = new Set(after);
  return {
    ok: true,
    preview: { device: name, accepted: true, method: 'config_session', added: after.filter((l) => !had.has(l)), removed: before.filter((l) => !has.has(l)), problems: [], rollback, fingerprint: { sha256: lab.previewed.remember(name, normalisedConfigLines(render(device.config))), source: 'running-config' } },
  };
}
