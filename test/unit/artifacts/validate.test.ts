import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ArtifactValidationError, listArtifactGroups, loadArtifactGroup } from '../../../src/runbooks/load';
import { formatIssue, validateArtifactGroupDir, validateArtifactTree } from '../../../src/runbooks/validate';

const ROOT = 'intelligence-artifacts';

/** 1-based line of the first line containing `needle`. */
function lineOf(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`"${needle}" not in text`);
  return i + 1;
}

describe('the published artifacts', () => {
  it('all validate, with their test cases', async () => {
    const { groups, issues } = await validateArtifactTree(ROOT);
    expect(issues.map((i) => formatIssue(i))).toEqual([]);
    expect(groups.map((g) => g.alert_def_id)).toEqual(expect.arrayContaining(['AD000002', 'AD000003']));
    const ad2 = groups.find((g) => g.alert_def_id === 'AD000002')!;
    expect(new Set(ad2.raw.steps.map((s) => s.kind))).toEqual(
      new Set(['validate', 'collect', 'repair', 'wait', 'revalidate', 'resolve', 'fail', 'escalate']),
    );
    expect(ad2.tests.length).toBeGreaterThanOrEqual(5);
  });

  it('are listed for pickers with their versions', async () => {
    const list = await listArtifactGroups(ROOT);
    expect(list.find((g) => g.alert_def_id === 'AD000002')).toMatchObject({ valid: true, fs_version: '1.4.0', raw_version: '1.5.0', title: 'BGP neighbor administratively shut down' });
  });
});

describe('a broken copy of an artifact group', () => {
  let dir: string;
  let group: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'artifacts-'));
    group = join(dir, 'AD000002');
    await cp(join(ROOT, 'AD000002'), group, { recursive: true });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const edit = async (file: string, from: string, to: string) => {
    const path = join(group, file);
    const text = await readFile(path, 'utf8');
    expect(text).toContain(from);
    const next = text.replace(from, to);
    await writeFile(path, next);
    return next;
  };

  it('points at the file and line of a transition to a step that does not exist', async () => {
    const text = await edit('RAW.yaml', 'on_success: collect_bgp_config', 'on_success: colect_bgp_config');
    const { group: g, issues } = await validateArtifactGroupDir(group);
    expect(g).toBeUndefined();
    const msg = issues.map((i) => formatIssue(i, dir));
    expect(msg).toContain(`AD000002/RAW.yaml:${lineOf(text, 'on_success: colect_bgp_config')}:17: step validate_neighbor_state leads to unknown step colect_bgp_config`);
    // The steps the typo cut off are one line, naming them, not a line each burying the cause.
    const unreached = msg.filter((m) => m.includes('never reached'));
    expect(unreached).toEqual([expect.stringMatching(/: \d+ steps are never reached from check_device_reachable: collect_bgp_config, /)]);
  });

  it('points at the line of a step with an unknown kind', async () => {
    const text = await edit('RAW.yaml', 'kind: wait', 'kind: sleep');
    const { issues } = await validateArtifactGroupDir(group);
    expect(issues).toContainEqual(expect.objectContaining({ file: join(group, 'RAW.yaml'), line: lineOf(text, 'kind: sleep'), message: expect.stringMatching(/step kind must be one of validate, collect, repair, wait/) }));
  });

  it('catches a template that reads a variable nobody provides', async () => {
    const text = await edit('RAW.yaml', "- 'no neighbor {{neighbor_ip}} shutdown'", "- 'no neighbor {{neighbour_ip}} shutdown'");
    const { issues } = await validateArtifactGroupDir(group);
    expect(issues).toContainEqual(expect.objectContaining({ line: lineOf(text, '{{neighbour_ip}}'), message: '{{neighbour_ip}} is neither a RAW input nor captured by any step' }));
  });

  it('refuses an exec_cli that is not a read-only show command', async () => {
    const text = await edit('RAW.yaml', 'command: show version', 'command: clear ip bgp *');
    const { issues } = await validateArtifactGroupDir(group);
    expect(issues).toContainEqual(expect.objectContaining({ line: lineOf(text, 'clear ip bgp'), message: expect.stringContaining('read-only show command') }));
  });

  it('keeps exec_cli commands renderable before the run (strict mode)', async () => {
    const text = await edit('RAW.yaml', 'command: show running-config | section router bgp', "command: 'show running-config | section router bgp {{local_as}}'");
    const { issues } = await validateArtifactGroupDir(group);
    expect(issues).toContainEqual(expect.objectContaining({ line: lineOf(text, 'section router bgp {{local_as}}'), message: expect.stringContaining('{{local_as}} is captured at run time') }));
  });

  it('holds the RG to the RAW version beside it, with the line inside the front matter', async () => {
    const text = await edit('RG.md', 'raw_version: 1.5.0', 'raw_version: 1.1.0');
    const { issues } = await validateArtifactGroupDir(group);
    expect(issues).toContainEqual(
      expect.objectContaining({ file: join(group, 'RG.md'), line: lineOf(text, 'raw_version'), column: 14, message: 'RG explains RAW 1.1.0 but RAW.yaml is version 1.5.0', hint: expect.stringContaining('raw_version: 1.5.0') }),
    );
  });

  it('holds each platform to its own grammar: a command FRR lacks needs an FRR variant', async () => {
    const text = await edit('RAW.yaml', '        action: { type: exec_cli, command: show running-config bgpd }\n', '');
    const { issues } = await validateArtifactGroupDir(group);
    expect(issues).toContainEqual(
      expect.objectContaining({
        line: lineOf(text, 'command: show running-config | section router bgp'),
        message: expect.stringContaining('on frr, "show running-config | section router bgp" is not in the platform\'s grammar: FRR has no "| section"'),
      }),
    );
  });

  it('refuses a variant for a platform the workflow does not declare', async () => {
    await edit('RAW.yaml', 'platforms: [iosxe, frr, netconf]', 'platforms: [iosxe, netconf]');
    const { issues } = await validateArtifactGroupDir(group);
    expect(issues.map((i) => i.message)).toContain("variant for frr, which is not in the workflow's platforms (iosxe, netconf)");
  });

  it('proves FS examples against their regex', async () => {
    const text = await edit('FS.yaml', "captures: { neighbor_ip: 10.1.1.2, vrf_name: CUST-A }\n    - id: bgp_session", "captures: { neighbor_ip: 10.1.1.2, vrf_name: CUST-B }\n    - id: bgp_session");
    const { issues } = await validateArtifactGroupDir(group);
    expect(issues).toContainEqual(expect.objectContaining({ line: lineOf(text, 'CUST-B'), message: 'example captures vrf_name=CUST-A but the example says CUST-B' }));
  });

  it('requires RAW inputs to be FS variables', async () => {
    const text = await edit('RAW.yaml', '  - name: vrf_name\n', '  - name: vrf\n');
    const { issues } = await validateArtifactGroupDir(group);
    expect(issues).toContainEqual(expect.objectContaining({ line: lineOf(text, '- name: vrf\n'.trim()), message: expect.stringMatching(/^input vrf is not a variable of the FS/) }));
  });

  it('reports YAML syntax errors with their position and loadArtifactGroup refuses the group', async () => {
    const text = await edit('FS.yaml', 'severity: major', 'severity: [major');
    const { issues } = await validateArtifactGroupDir(group);
    expect(issues[0]!.file).toBe(join(group, 'FS.yaml'));
    expect(issues[0]!.message).toMatch(/^YAML: /);
    expect(issues[0]!.line).toBeGreaterThanOrEqual(lineOf(text, 'severity: [major'));
    await expect(loadArtifactGroup(dir, 'AD000002')).rejects.toThrow(ArtifactValidationError);
  });

  it('checks test cases against the RAW they test', async () => {
    const file = join('tests', '02-admin-down-denied-escalated.yaml');
    const text = await edit(file, 'outcome: escalated', 'outcome: resolved');
    const { issues } = await validateArtifactGroupDir(group);
    expect(issues).toContainEqual(expect.objectContaining({ file: join(group, file), line: lineOf(text, 'outcome: resolved'), message: expect.stringContaining('contradicts the path') }));
  });
});
