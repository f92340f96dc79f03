import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatIssue, validateArtifactGroupDir } from '../../../src/runbooks/validate';
import { stepForPlatform } from '../../../src/runbooks/variants';

const ROOT = 'intelligence-artifacts';

/** 1-based line of the first line containing `needle`. */
function lineOf(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`"${needle}" not in text`);
  return i + 1;
}

describe('a RAW variant for a NETCONF device', () => {
  let dir: string;
  let group: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'artifacts-netconf-'));
    group = join(dir, 'AD000002');
    await cp(join(ROOT, 'AD000002'), group, { recursive: true });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const edit = async (from: string, to: string) => {
    const path = join(group, 'RAW.yaml');
    const text = await readFile(path, 'utf8');
    expect(text).toContain(from);
    const next = text.replace(from, to);
    await writeFile(path, next);
    return next;
  };

  it('is accepted with the NETCONF show forms and an XML <config> repair (AD000002 as published)', async () => {
    const { group: g, issues } = await validateArtifactGroupDir(group);
    expect(issues.map((i) => formatIssue(i, dir))).toEqual([]);
    const byKind = (kind: string) => stepForPlatform(g!.raw.steps.find((s) => s.kind === kind)!, 'netconf');
    const repair = byKind('repair');
    expect(repair.kind === 'repair' && repair.action.commands[0]).toBe('<config>');
    const revalidate = byKind('revalidate');
    expect(revalidate.kind === 'revalidate' && revalidate.action.command).toBe('show running-config');
  });

  it('points at a show command a NETCONF device does not answer, with the forms it does', async () => {
    const text = await edit('command: show candidate-config }', 'command: show logging }');
    const { issues } = await validateArtifactGroupDir(group);
    expect(issues).toContainEqual(
      expect.objectContaining({
        file: join(group, 'RAW.yaml'),
        line: lineOf(text, 'command: show logging }'),
        message: expect.stringContaining('on netconf, "show logging" is not in the platform\'s grammar: a NETCONF device answers only "show running-config", "show candidate-config", "show capabilities"'),
      }),
    );
  });

  it('points at CLI repair lines that would reach a NETCONF device, with how to write the fragment', async () => {
    // The repair step without its netconf variant: the IOS-XE lines are what a NETCONF device would get.
    const text = await readFile(join(group, 'RAW.yaml'), 'utf8');
    const start = text.indexOf('      netconf:\n        # One <config> element');
    const end = text.indexOf("            - '</config>'\n", start) + "            - '</config>'\n".length;
    expect(start).toBeGreaterThan(0);
    const without = text.slice(0, start) + text.slice(end);
    await writeFile(join(group, 'RAW.yaml'), without);
    const { issues } = await validateArtifactGroupDir(group);
    expect(issues).toContainEqual(
      expect.objectContaining({
        line: lineOf(without, "- 'router bgp {{local_as}}'") - 1,
        message: expect.stringContaining("on netconf, the repair's lines are not what a NETCONF device takes: a NETCONF change is one XML <config> element; it is not well-formed XML"),
        hint: expect.stringContaining('variants: { netconf: { action: { type: config_cli'),
      }),
    );
  });

  it('points at a fragment the device service would refuse: an element without its YANG namespace', async () => {
    const text = await edit(`- '<bgp xmlns="urn:fault-relay:lab:bgp">'`, `- '<bgp>'`);
    const { issues } = await validateArtifactGroupDir(group);
    expect(issues).toContainEqual(
      expect.objectContaining({
        line: lineOf(text, "- '<config>'") - 1,
        message: expect.stringContaining('<bgp> has no namespace of its own'),
      }),
    );
  });
});
