import { existsSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { errorText } from '../../core/error-body';
import { describeProblem, loadPolicy } from '../../core/policy/load';
import { hashOf, MANIFEST_COMMAND, SHIPPED_MANIFEST, type Difference, type HashCache, type RuntimeManifest } from './integrity';

/**
 * The change policy decides who approves what, when. A copy inside the project folder is a file the
 * relay ships, like its agent files: checked against the committed manifest, and runs are refused
 * while it differs. A team keeps its own policy outside the project (POLICY_FILE), where an edit is
 * picked up without a restart.
 */
export const SHIPPED_POLICY = 'policy.yaml';

const FIX = `restore it, or after an intended change run ${MANIFEST_COMMAND} and restart the relay, or keep the team's policy outside the project folder (POLICY_FILE)`;

/** Project-relative (forward slashes), or undefined for a file outside the project. */
function inside(projectDir: string, abs: string): string | undefined {
  const rel = path.relative(path.resolve(projectDir), path.resolve(abs));
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

/** For the manifest: the project's policy.yaml and every records file it names (within the project), path → sha256. */
export function policyManifest(projectDir: string): Record<string, string> {
  const file = path.join(projectDir, SHIPPED_POLICY);
  if (!existsSync(file)) return {};
  const load = loadPolicy(file);
  if (!load.ok) throw new Error(`the shipped ${SHIPPED_POLICY} does not load:\n${load.problems.map(describeProblem).join('\n')}`);
  const out: Record<string, string> = {};
  for (const abs of load.loaded.sources) {
    const rel = inside(projectDir, abs);
    if (!rel) throw new Error(`the relay ships nothing outside its folder, and ${SHIPPED_POLICY} names ${abs}`);
    out[rel] = hashOf(abs, lstatSync(abs, { bigint: true }), undefined);
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** How each policy file in force that lives in the project differs from what the relay ships; files outside are the team's. */
export function comparePolicyFiles(projectDir: string, sources: readonly string[], manifest: RuntimeManifest = SHIPPED_MANIFEST, cache?: HashCache): Difference[] {
  const shipped = manifest.policy ?? {};
  const out: Difference[] = [];
  for (const abs of sources) {
    const file = inside(projectDir, abs);
    if (!file) continue;
    const st = lstatSync(abs, { bigint: true, throwIfNoEntry: false });
    const hash = shipped[file];
    if (!st) out.push({ file, why: 'missing (the change policy in force names it)' });
    else if (st.isSymbolicLink()) out.push({ file, why: 'replaced by a symbolic link' });
    else if (hash === undefined) out.push({ file, why: 'a change policy file inside the project folder that the relay does not ship' });
    else {
      const now = hashOf(abs, st, cache);
      if (now !== hash) out.push({ file, why: `changed (sha256 ${now.slice(0, 12)}…, the relay ships ${hash.slice(0, 12)}…)` });
    }
  }
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

/**
 * Asked before each run and by /health: null while every policy file in the project is as shipped.
 * `sources` are the files of the policy in force now (a reload may name other records files).
 */
export function createPolicyFilesCheck(projectDir: string, sources: () => readonly string[], manifest: RuntimeManifest = SHIPPED_MANIFEST, opts: { now?: () => number } = {}) {
  const cache: HashCache = { entries: new Map(), now: opts.now ?? Date.now };
  const problem = (): string | null => {
    try {
      const [first, ...rest] = comparePolicyFiles(projectDir, sources(), manifest, cache);
      if (!first) return null;
      const more = rest.length ? ` (and ${rest.length} more: ${rest.map((d) => d.file).join(', ')})` : '';
      return `the change policy file ${first.file} is ${first.why}${more}; ${FIX}`;
    } catch (error) {
      // Unreadable is not "as shipped".
      return `the change policy files could not be read (${errorText(error)})`;
    }
  };
  return {
    problem,
    /** For /health, the tray and /ui: the standing warning while runs are held. */
    warnings: (): string[] => {
      const p = problem();
      return p ? [`Runs are held: ${p}.`] : [];
    },
  };
}

export type PolicyFilesCheck = ReturnType<typeof createPolicyFilesCheck>;
