import { unwatchFile, watchFile } from 'node:fs';
import type { Logger } from 'pino';
import type { Incident } from '../incidents/model';
import { evaluatePolicy } from './evaluate';
import { describeProblem, loadPolicy, type LoadedPolicy } from './load';
import type { EscalationStep, Verdict } from './schema';

export interface RelayPolicy {
  /** The verdict for these lines on this incident's device, now. */
  verdict(incident: Incident, lines: string[], at: Date): Verdict;
  /** Which policy is in force (its file and SHA-256), for the evidence and /health. */
  current(): { file: string; sha256: string };
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
export function openRelayPolicy(file: string, logger: Logger, pollMs = 1_000): RelayPolicy {
  const first = loadPolicy(file);
  if (!first.ok) throw new Error(`POLICY_FILE does not load:\n${first.problems.map(describeProblem).join('\n')}`);
  let loaded: LoadedPolicy = first.loaded;
  let problems: string[] = [];
  const reload = () => {
    const next = loadPolicy(file);
    if (!next.ok) {
      problems = next.problems.map(describeProblem);
      logger.warn({ problems }, 'the changed policy does not load: the last good one stays in force');
      return;
    }
    problems = [];
    if (next.loaded.sha256 === loaded.sha256) return;
    loaded = next.loaded;
    logger.info({ file: loaded.file, sha256: loaded.sha256 }, 'change policy reloaded');
  };
  watchFile(loaded.file, { interval: pollMs, persistent: false }, reload);
  return {
    verdict: (incident, lines, at) =>
      evaluatePolicy(loaded, {
        alert: { alert_def_id: incident.alert_def_id, device: incident.device_hostname, severity: incident.severity, vars: { ...incident.alert_vars } },
        device: { name: incident.device_hostname },
        lines,
        at,
      }),
    current: () => ({ file: loaded.file, sha256: loaded.sha256 }),
    escalation: () => loaded.policy.escalation.steps,
    warnings: () => (problems.length ? [`The change policy was edited but does not load; the last good one (sha256 ${loaded.sha256.slice(0, 12)}) stays in force: ${problems.join('; ')}`] : []),
    stop: () => unwatchFile(loaded.file, reload),
  };
}
