import { appendFileSync, copyFileSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHIPPED_MANIFEST } from '../../../src/adapters/agent/integrity';
import { comparePolicyFiles, createPolicyFilesCheck, policyManifest } from '../../../src/adapters/agent/policy-files';
import { loadPolicy } from '../../../src/core/policy/load';
import { tempDir } from '../../helpers/temp-dir';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const POLICY_FILES = ['change-records.yaml', 'maintenance-windows.ics', 'policy.yaml'];

/** A folder with the shipped policy and its records files, as a project or a team's own folder holds them. */
function withPolicy(prefix: string): string {
  const dir = tempDir(prefix);
  for (const f of POLICY_FILES) copyFileSync(path.join(repoRoot, f), path.join(dir, f));
  return dir;
}
/** The files of the policy in force, as the relay's policy names them after loading. */
const sourcesOf = (file: string) => {
  const load = loadPolicy(file);
  if (!load.ok) throw new Error('the policy does not load');
  return load.loaded.sources;
};

describe('the shipped change policy in the runtime manifest', () => {
  it('records policy.yaml and the records files it names, as they are in the repository (after changing one, run npm run runtime:manifest)', () => {
    expect(Object.keys(SHIPPED_MANIFEST.policy ?? {})).toEqual(POLICY_FILES);
    expect(SHIPPED_MANIFEST.policy, 'run `npm run runtime:manifest` and commit src/adapters/agent/runtime-manifest.json').toEqual(policyManifest(repoRoot));
    expect(comparePolicyFiles(repoRoot, sourcesOf(path.join(repoRoot, 'policy.yaml')))).toEqual([]);
  });
});

describe('comparing the policy in force with the manifest', () => {
  it('finds nothing in an unchanged copy inside the project', () => {
    const project = withPolicy('policy-files-');
    expect(comparePolicyFiles(project, sourcesOf(path.join(project, 'policy.yaml')))).toEqual([]);
  });

  it('names a changed policy.yaml and a changed records file inside the project', () => {
    const project = withPolicy('policy-files-');
    writeFileSync(path.join(project, 'policy.yaml'), readFileSync(path.join(project, 'policy.yaml'), 'utf8').replace('count: 2', 'count: 1'));
    appendFileSync(path.join(project, 'change-records.yaml'), '\n# nothing open\n');
    expect(comparePolicyFiles(project, sourcesOf(path.join(project, 'policy.yaml')))).toEqual([
      { file: 'change-records.yaml', why: expect.stringMatching(/^changed \(sha256 [0-9a-f]{12}…, the relay ships [0-9a-f]{12}…\)$/) },
      { file: 'policy.yaml', why: expect.stringMatching(/^changed/) },
    ]);
  });

  it('names a policy file in the project that the relay does not ship, one replaced by a link, and one gone', () => {
    const project = withPolicy('policy-files-');
    copyFileSync(path.join(project, 'policy.yaml'), path.join(project, 'team-policy.yaml'));
    const records = path.join(project, 'change-records.yaml');
    copyFileSync(records, path.join(project, 'records.copy'));
    rmSync(records);
    symlinkSync(path.join(project, 'records.copy'), records);
    rmSync(path.join(project, 'maintenance-windows.ics'));
    const sources = ['team-policy.yaml', 'change-records.yaml', 'maintenance-windows.ics'].map((f) => path.join(project, f));
    expect(comparePolicyFiles(project, sources)).toEqual([
      { file: 'change-records.yaml', why: 'replaced by a symbolic link' },
      { file: 'maintenance-windows.ics', why: 'missing (the change policy in force names it)' },
      { file: 'team-policy.yaml', why: 'a change policy file inside the project folder that the relay does not ship' },
    ]);
  });

  it('leaves a policy kept outside the project to the team: edited freely, nothing to compare', () => {
    const project = tempDir('policy-files-project-');
    const team = withPolicy('policy-files-team-');
    writeFileSync(path.join(team, 'policy.yaml'), readFileSync(path.join(team, 'policy.yaml'), 'utf8').replace('default: escalate', 'default: deny'));
    expect(comparePolicyFiles(project, sourcesOf(path.join(team, 'policy.yaml')))).toEqual([]);
    expect(createPolicyFilesCheck(project, () => sourcesOf(path.join(team, 'policy.yaml'))).problem()).toBeNull();
  });

  it('the check before each run names the file and both fixes, and ends as soon as the file is restored', () => {
    const project = withPolicy('policy-files-');
    const file = path.join(project, 'policy.yaml');
    const check = createPolicyFilesCheck(project, () => [file]);
    const original = readFileSync(file);
    expect([check.problem(), check.warnings()]).toEqual([null, []]);
    appendFileSync(file, '\n# tier1 may approve anything at night\n');
    expect(check.problem()).toMatch(
      /^the change policy file policy\.yaml is changed \(sha256 .*\); restore it, or after an intended change run npm run runtime:manifest and restart the relay, or keep the team's policy outside the project folder \(POLICY_FILE\)$/,
    );
    expect(check.warnings()).toEqual([expect.stringMatching(/^Runs are held: the change policy file policy\.yaml is changed/)]);
    writeFileSync(file, original);
    expect(check.problem()).toBeNull();
  });
});
