import type { ConfigPreview } from '../artifacts/config-preview';
import { DeviceError } from './errors';
import type { NetconfDevice } from './netconf/device';
import { previewNetconf } from './netconf/preview';
import { grammarProblem, type Platform } from './platforms';
import { frrParserCheck } from './frr-dryrun';
import { predictDiff } from './preview-model';

/** What a preview needs from the device service (device-service.ts `preview`). */
export interface PreviewTarget {
  device: string;
  platform: Platform;
  netconf?: NetconfDevice;
  knownHostsPath: string;
  /** The server's own check of change lines (control lines, `end`, line breaks): throws not_in_grammar. */
  checkLines(lines: string[]): string[];
  /** `show running-config`, read through the device's queue. */
  running(): Promise<string>;
  /** Runs `work` in the device's queue (no other call on the device meanwhile). */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
}

const refused = (device: string, method: ConfigPreview['method'], problems: string[]): ConfigPreview => ({ device, accepted: false, method, added: [], removed: [], problems });

/**
 * What lines would change on the device, without changing it. NETCONF: the device's own dry run on
 * its candidate (netconf/preview.ts). CLI platforms: the server's line checks and the platform's
 * grammar, on FRR its own parser (frr-dryrun.ts), then a diff predicted from the live running
 * configuration (preview-model.ts): FRR 8.4 and the IOS family cannot check a configuration line on
 * the router without applying it.
 */
export async function previewOn(t: PreviewTarget, lines: string[]): Promise<ConfigPreview> {
  if (t.netconf) {
    const netconf = t.netconf;
    return t.exclusive(() => previewNetconf(netconf.entry, t.knownHostsPath, lines));
  }
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
  const { added, removed } = predictDiff(await t.running(), checked);
  return { device: t.device, accepted: true, method, added, removed, problems: [] };
}
