import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anchorProblem } from '../../../src/runbooks/anchored-pattern';
import { validateArtifactGroupDir } from '../../../src/runbooks/validate';

/**
 * What the validator holds a RAW to so that alert text never becomes part of a command and device
 * text the change controls never satisfies the post-check: each problem at its file:line, with a fix.
 */
let dir: string;
let group: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'artifacts-formats-'));
  group = join(dir, 'AD000002');
  await cp(join('intelligence-artifacts', 'AD000002'), group, { recursive: true });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
async function edit(from: string, to: string): Promise<string> {
  const path = join(group, 'RAW.yaml');
  const text = await readFile(path, 'utf8');
  expect(text).toContain(from);
  const next = text.replace(from, to);
  await writeFile(path, next);
  return next;
}
const issues = async () => (await validateArtifactGroupDir(group)).issues;

describe('variables rendered into commands', () => {
  it('refuses an input without a declared format', async () => {
    await edit("    required: true\n    format: ipv4\n", '    required: true\n');
    expect(await issues()).toContainEqual(expect.objectContaining({ message: expect.stringMatching(/^inputs\.1\.format: /) }));
  });

  it('refuses a command that renders a free-text input, naming the line and a fix', async () => {
    const text = await edit('command: show version }', 'command: "show version {{device_platform}}" }');
    expect(await issues()).toContainEqual(
      expect.objectContaining({
        line: lineOf(text, 'show version {{device_platform}}'),
        message: expect.stringContaining('input device_platform has format text, which is never rendered into a command'),
        hint: expect.stringMatching(/give device_platform a format a command may carry/),
      }),
    );
  });

  it('refuses a configuration line that renders an undeclared variable', async () => {
    const text = await edit("- 'no neighbor {{neighbor_ip}} shutdown'", "- 'no neighbor {{neighbor_ip}} shutdown {{vrf_extra}}'");
    expect(await issues()).toContainEqual(expect.objectContaining({ line: lineOf(text, '{{vrf_extra}}'), message: expect.stringContaining('{{vrf_extra}} is not a declared RAW input') }));
  });
});

describe('patterns the post-check reads', () => {
  it('refuses an unanchored capture: the one a description line could satisfy', async () => {
    const text = await edit("- '^\\s+(?<prefixes_received>\\d+) accepted prefixes'", "- '(?<prefixes_received>\\d+) accepted prefixes'");
    expect(await issues()).toContainEqual(
      expect.objectContaining({
        line: lineOf(text, "- '(?<prefixes_received>"),
        message: expect.stringContaining('a capture the post-check reads is not anchored to its field: it does not start with "^"'),
        hint: expect.stringContaining('Patterns the post-check reads'),
      }),
    );
  });

  it("refuses a post-check's unanchored matches, and a contains on CLI output", async () => {
    const text = await edit("      - matches: '^\\s+BGP state = Established\\b'\n      - var: prefixes_received", "      - contains: 'BGP state = Established'\n      - var: prefixes_received");
    expect(await issues()).toContainEqual(expect.objectContaining({ line: lineOf(text, "- contains: 'BGP state = Established'"), message: expect.stringContaining('cannot be anchored') }));
  });

  it('holds every alternative of a pattern to the anchor', async () => {
    const text = await edit("- '^\\s+Prefixes Current:", "- '^\\s+Prefixes Current:\\s+\\d+\\s+(?<x>\\d+)|");
    expect(await issues()).toContainEqual(expect.objectContaining({ line: lineOf(text, '(?<x>'), message: expect.stringContaining('"|" outside any group') }));
  });

  it('states the rule precisely: a literal label after ^, or a one-token value followed by its label', () => {
    expect(anchorProblem(String.raw`^\s+BGP state = Established\b`, false)).toBeUndefined();
    expect(anchorProblem(String.raw`^\s+(?<n>\d+) accepted prefixes`, false)).toBeUndefined();
    expect(anchorProblem(String.raw`^router bgp (?<as>\d+)$`, false)).toBeUndefined();
    expect(anchorProblem(String.raw`(?<n>\d+) accepted prefixes`, false)).toMatch(/does not start with "\^"/);
    expect(anchorProblem(String.raw`^.*(?<n>\d+) accepted prefixes`, false)).toMatch(/neither a literal field label/);
    expect(anchorProblem(String.raw`^\s+(?<n>.+) accepted prefixes`, false)).toMatch(/more than one token/);
    expect(anchorProblem(String.raw`^\s+(?<n>\d+)`, false)).toMatch(/not followed by a literal field label/);
    expect(anchorProblem('<as>(?<local_as>\\d+)</as>', true)).toBeUndefined();
    expect(anchorProblem('(?<local_as>\\d+)</as>', true)).toMatch(/element tag/);
  });
});
