import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { scaffoldGroup, ScaffoldError } from '../../../src/runbooks/scaffold';
import { formatIssue, validateArtifactGroupDir, validateArtifactTree } from '../../../src/runbooks/validate';
import { loadVault } from '../../../src/runbooks/kb/vault';
import { tempDir } from '../../helpers/temp-dir';

const execFileP = promisify(execFile);
// node --import tsx: no npx start-up per call.
const run = (_npx: string, args: string[], opts: { env?: NodeJS.ProcessEnv } = {}) => execFileP(process.execPath, ['--import', 'tsx', ...args.slice(1)], opts);

/** A copy of the published artifacts and KB: the scaffold never writes into the repository. */
async function copies() {
  const root = tempDir('scaffold-');
  const artifactsDir = join(root, 'intelligence-artifacts');
  const kbDir = join(root, 'kb');
  await cp('intelligence-artifacts', artifactsDir, { recursive: true });
  await cp('kb', kbDir, { recursive: true });
  return { root, artifactsDir, kbDir };
}

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('artifacts:new', () => {
  it('scaffolds a group that validates, with its ids and versions rewritten and a KB page', async () => {
    const { artifactsDir, kbDir } = await copies();
    const result = await scaffoldGroup({ id: 'AD000042', from: 'AD000002', artifactsDir, kbDir, today: '2026-11-26' });
    expect(result.dir).toBe(join(artifactsDir, 'AD000042'));
    const { group, issues } = await validateArtifactGroupDir(result.dir);
    expect(issues.map((i) => formatIssue(i))).toEqual([]);
    expect(group).toMatchObject({ alert_def_id: 'AD000042', fs: { version: '0.1.0' }, raw: { version: '0.1.0', fs_version: '0.1.0' } });
    expect(group!.fs.sources).toBeUndefined();
    expect(group!.rg.frontMatter).toMatchObject({ alert_def_id: 'AD000042', fs_version: '0.1.0', raw_version: '0.1.0', last_reviewed: '2026-11-26' });
    expect(group!.fs.title).toBe('DRAFT (from AD000002): BGP neighbor administratively shut down');
    expect(group!.tests.length).toBeGreaterThan(0);
    // No second definition claims AD000002's Alertmanager alerts, and the whole tree still validates.
    expect((await validateArtifactTree(artifactsDir)).issues).toEqual([]);
    const page = await readFile(join(kbDir, 'alerts', 'ad000042.md'), 'utf8');
    expect(page).toContain('# AD000042');
    const vault = await loadVault(kbDir);
    expect(vault.byId.get('alerts/ad000042')?.links).toEqual(['policies/approval-policy', 'incidents/incident-history', 'alerts/ad000002']);
    expect(vault.brokenLinks.filter((l) => l.includes('ad000042'))).toEqual([]);
  });

  it('refuses an existing id, a bad id and a missing source with one line', async () => {
    const { artifactsDir, kbDir } = await copies();
    await expect(scaffoldGroup({ id: 'AD000003', from: 'AD000002', artifactsDir, kbDir })).rejects.toThrow(new ScaffoldError(`AD000003 already exists (${join(artifactsDir, 'AD000003')}); pick an unused id or edit that group`));
    await expect(scaffoldGroup({ id: 'AD42', from: 'AD000002', artifactsDir, kbDir })).rejects.toThrow(/^id "AD42" must be "AD" followed by six digits/);
    await expect(scaffoldGroup({ id: 'AD000042', from: 'AD000099', artifactsDir, kbDir })).rejects.toThrow(/no artifact group AD000099 to copy/);
  });

  it('the validator points at the file and line of a broken line and says how to fix it', async () => {
    const { artifactsDir, kbDir } = await copies();
    const { dir } = await scaffoldGroup({ id: 'AD000042', from: 'AD000003', artifactsDir, kbDir });
    const file = join(dir, 'RAW.yaml');
    const text = (await readFile(file, 'utf8')).replace('fs_version: 0.1.0', 'fs_version: 0.2.0').replace(/kind: revalidate/, 'kind: revalidat');
    await writeFile(file, text);
    const { issues } = await validateArtifactGroupDir(dir);
    const printed = issues.map((i) => formatIssue(i, artifactsDir, { hint: true }));
    expect(printed).toContainEqual(expect.stringMatching(new RegExp(`^AD000042/RAW.yaml:${lineOf(text, 'kind: revalidat')}:\\d+: steps\\.\\d+\\.kind: step kind must be one of .*\\n    fix: `)));
    // Schema errors stop the cross-checks; a version mismatch is reported once the schema holds.
    await writeFile(file, text.replace('kind: revalidat', 'kind: revalidate'));
    const again = (await validateArtifactGroupDir(dir)).issues.map((i) => formatIssue(i, artifactsDir, { hint: true }));
    expect(again).toEqual([
      `AD000042/RAW.yaml:${lineOf(text, 'fs_version')}:13: RAW was written for FS 0.2.0 but FS.yaml is version 0.1.0\n    fix: check the workflow against the FS, then set fs_version: 0.1.0`,
    ]);
  });

  it('every issue of a badly broken group carries a line and a hint', async () => {
    const { artifactsDir, kbDir } = await copies();
    const { dir } = await scaffoldGroup({ id: 'AD000042', from: 'AD000002', artifactsDir, kbDir });
    for (const name of ['FS.yaml', 'RAW.yaml']) {
      const file = join(dir, name);
      const text = await readFile(file, 'utf8');
      await writeFile(file, text.replace('kind: ', 'kind: x').replace(/^title: .*$/m, 'titel: x').replace('- name: device_hostname', '- name: Device'));
    }
    await mkdir(join(dir, 'tests'), { recursive: true });
    await writeFile(join(dir, 'tests', 'zz.yaml'), 'name: [unclosed\n');
    const { issues } = await validateArtifactGroupDir(dir);
    expect(issues.length).toBeGreaterThan(4);
    for (const i of issues) {
      expect(i.line).toBeGreaterThan(0);
      expect(i.hint.length).toBeGreaterThan(10);
    }
  });

  it('the CLI scaffolds into --dir/--kb-dir and exits 2 with one line on an existing id', { timeout: 60_000 }, async () => {
    const { artifactsDir, kbDir } = await copies();
    const cmd = ['tsx', 'scripts/new-artifact.ts', 'AD000042', '--from', 'AD000003', '--dir', artifactsDir, '--kb-dir', kbDir];
    const ok = await run('npx', cmd);
    expect(ok.stdout).toContain('Next:');
    expect(ok.stdout).toContain(`npm run artifacts:validate -- AD000042 --dir ${artifactsDir}`);
    const refused = await run('npx', cmd).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(refused?.code).toBe(2);
    expect(refused?.stderr.trim().split('\n')).toEqual([`artifacts:new: AD000042 already exists (${join(artifactsDir, 'AD000042')}); pick an unused id or edit that group`]);
    const validate = await run('npx', ['tsx', 'scripts/validate-artifacts.ts', 'AD000042'], { env: { ...process.env, ARTIFACTS_DIR: artifactsDir } });
    expect(validate.stdout).toMatch(/^ok {2}AD000042 {2}FS 0\.1\.0/);
  });
});
