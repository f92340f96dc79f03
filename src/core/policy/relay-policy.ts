import { unwatchFile, watchFile } from 'node:fs';
import type { Logger } from 'pino';
import type { Incident } from '../incidents/model';
import { evaluatePolicy } from './evaluate';
import { describeProblem, loadPolicy, type LoadedPolicy } from './load';
import type { EscalationStep, Verdict } from './schema';

/** The inventory's platform and tags for a device, as the policy's `device` sees them. */
export type DeviceLookup = (name: string) => { platform?: string; tags?: Record<string, string> } | undefined;

export interface RelayPolicy {
  /** The verdict for these lines on this incident's device, now. */
  verdict(incident: Incident, lines: string[], at: Date): Verdict;
  /** Which policy is in force (its file and SHA-256), for the evidence and /health. */
  current(): { file: string; sha256: string };
  /** The files of the policy in force: the policy file and every records file it names. */
  sources(): readonly string[];
  /** The escalation chain in force (`escalation.steps`; empty when the file has none). */
  escalation(): readonly EscalationStep[];
  /** A change to the file that did not load: the last good policy stays, and this says why. */
  warnings(): string[];
  stop(): void;
}

/**
 * The change policy the relay enforces (POLICY_FILE). Loaded at start (a relay does not start on
 * a policy it cannot read); a change to the file is picked up without a restart, and one that
 * does not load leaves the last good policy in force, with a standing warning naming the problems.
 */
export function openRelayPolicy(
  file: string,
  logger: Logger,
  options: { device?: DeviceLookup; pollMs?: number; onChange?: (change: { file: string; sha256: string; ok: boolean }) => void } = {},
): RelayPolicy {
  const { device = () => undefined, pollMs = 1_000, onChange } = options;
  const first = loadPolicy(file);
  if (!first.ok) throw new Error(`POLICY_FILE does not load:\n${first.problems.map(describeProblem).join('\n')}`);
  let loaded: LoadedPolicy = first.loaded;
  let problems: string[] = [];
  const reload = () => {
    const next = loadPolicy(file);
    if (!next.ok) {
      problems = next.problems.map(describeProblem);
      logger.warn({ problems }, 'the changed policy does not load: the last good one stays in force');
      onChange?.({ file: loaded.file, sha256: loaded.sha256, ok: false });
      return;
    }
    problems = [];
    if (next.loaded.digest === loaded.digest) return;
    loaded = next.loaded;
    watch(loaded.sources);
    logger.info({ file: loaded.file, sha256: loaded.sha256 }, 'change policy reloaded');
    onChange?.({ file: loaded.file, sha256: loaded.sha256, ok: true });
  };
  // The change records and calendars it names are part of the policy: an edit to any is picked up.
  const watched = new Set<string>();
  const settling = new Set<NodeJS.Timeout>();
  const watch = (files: string[]) => {
    const added = files.filter((f) => !watched.has(f));
    for (const f of added) watchFile(f, { interval: pollMs, persistent: false }, reload);
    for (const f of added) watched.add(f);
    if (!added.length) return;
    // A watcher takes its first look at a file a moment after it starts: an edit made before that look
    // is its starting point, never a change. One reading once it has looked catches such an edit.
    const once = setTimeout(() => {
      settling.delete(once);
      reload();
    }, pollMs);
    once.unref();
    settling.add(once);
  };
  watch(loaded.sources);
  return {
    verdict: (incident, lines, at) =>
      evaluatePolicy(loaded, {
        alert: { alert_def_id: incident.alert_def_id, device: incident.device_hostname, severity: incident.severity, vars: { ...incident.alert_vars } },
        device: { name: incident.device_hostname, ...device(incident.device_hostname) },
        lines,
        at,
      }),
    current: () => ({ file: loaded.file, sha256: loaded.sha256 }),
    sources: () => loaded.sources,
    escalation: () => loaded.policy.escalation.steps,
    warnings: () => (problems.length ? [`The change policy was edited but does not load; the last good one (sha256 ${loaded.sha256.slice(0, 12)}) stays in force: ${problems.join('; ')}`] : []),
    stop: () => {
      for (const f of watched) unwatchFile(f, reload);
      for (const t of settling) clearTimeout(t);
    },
  };
}
