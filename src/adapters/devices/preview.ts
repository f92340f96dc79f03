import type { ConfigPreview } from '../../runbooks/config-preview';
import { runningConfigFingerprint } from '../../runbooks/config-fingerprint';
import { DeviceError } from './errors';
import { grammarProblem, type Platform } from './platforms';
import { frrParserCheck } from './frr-dryrun';
import { predictConfig, predictDiff } from './preview-model';
import { groupsAsLines, restorePaths } from './config-diff';

/** What a preview needs from a CLI device (cli-driver.ts `preview`). */
export interface PreviewTarget {
  device: string;
  platform: Platform;
  /** The server's own check of change lines (control lines, `end`, line breaks): throws not_in_grammar. */
  checkLines(lines: string[]): string[];
  /** `show running-config`, read through the device's queue (and kept for the summary of a later mismatch). */
  running(): Promise<string>;
  /** A read-only show command, through the device's queue. */
  show(command: string): Promise<string>;
}

const refused = (device: string, method: ConfigPreview['method'], problems: string[]): ConfigPreview => ({ device, accepted: false, method, added: [], removed: [], problems });

/**
 * What lines would change on a CLI device, without changing it (a NETCONF device's own dry run on its
 * candidate is netconf/preview.ts): the server's line checks and the platform's
 * grammar, on FRR its own parser (frr-dryrun.ts), then a diff predicted from the live running
 * configuration (preview-model.ts): FRR 8.4 and the IOS family cannot check a configuration line on
 * the router without applying it.
 */
export async function previewOn(t: PreviewTarget, lines: string[]): Promise<ConfigPreview> {
  let checked: string[];
  try {
    checked = t.checkLines(lines);
  } catch (error) {
    if (error instanceof DeviceError && error.kind === 'not_in_grammar') return refused(t.device, 'predicted', [error.message]);
    throw error;
  }
  const problems = checked.flatMap((line, i) => {
    const why = grammarProblem(t.platform, line);
    return why ? [`line ${i + 1} "${line.trim()}": ${why}`] : [];
  });
  if (problems.length) return refused(t.device, 'predicted', problems);
  // FRR's own parser where the server's host has it: a line FRR would not take is refused here, not on the router.
  const parsed = t.platform.name === 'frr' ? await frrParserCheck(checked) : undefined;
  const method = parsed ? 'parser_checked' : 'predicted';
  if (parsed?.problems.length) return refused(t.device, method, parsed.problems);
  const live = t.platform.name === 'frr' ? await frrInterfacesInUse(t, checked) : [];
  if (live.length) return refused(t.device, method, live);
  const running = await t.running();
  const { added, removed } = predictDiff(running, checked);
  // The same restore the server runs when the change is rolled back (provisional.ts), here on the predicted result.
  const { before, after } = predictConfig(running, checked);
  const rollback = { method: 'restore' as const, lines: groupsAsLines(restorePaths(before, after)) };
  return { device: t.device, accepted: true, method, added, removed, problems: [], rollback, fingerprint: runningConfigFingerprint(running) };
}

const NO_INTERFACE = /^\s*no\s+interface\s+(\S+)\s*$/i;
const INTERFACE_NAME = /^[A-Za-z][A-Za-z0-9_./:-]{0,63}$/;

/**
 * FRR deletes only an interface the system no longer has (zebra: "Only inactive interfaces can be
 * deleted"); one the router still has keeps its configuration. Which ones it has is read from the
 * device (`show interface X`), so the preview never says a block goes that FRR keeps.
 */
async function frrInterfacesInUse(t: PreviewTarget, lines: string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const [i, line] of lines.entries()) {
    const name = NO_INTERFACE.exec(line)?.[1];
    if (!name) continue;
    // Only a name that reads as one reaches the device: the show command is the server's, not the line's.
    if (!INTERFACE_NAME.test(name)) {
      problems.push(`line ${i + 1} "${line.trim()}": "${name}" is not an interface name`);
      continue;
    }
    const out = await t.show(`show interface ${name}`);
    const present = new RegExp(`^Interface ${name.replace(/\./g, '\\.')} is `, 'm').test(out) && !/^\s*pseudo interface\s*$/m.test(out);
    if (present) problems.push(`line ${i + 1} "${line.trim()}": ${name} is present on ${t.device} (show interface ${name}), and FRR deletes only an interface the system no longer has: remove its lines one by one instead`);
  }
  return problems;
}
