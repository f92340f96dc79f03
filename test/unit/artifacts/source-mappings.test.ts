import { cp, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAlertmanagerDefinitions } from '../../../src/runbooks/source-mappings';
import { formatIssue, validateArtifactGroupDir } from '../../../src/runbooks/validate';
import { captureLogger } from '../../helpers/capture-logger';
import { tempDir } from '../../helpers/temp-dir';

/** A copy of AD000002 whose FS.yaml the test may edit. */
async function copyOfAd000002() {
  const root = tempDir('am-mapping-');
  const group = join(root, 'AD000002');
  await cp(join('intelligence-artifacts', 'AD000002'), group, { recursive: true });
  const fsFile = join(group, 'FS.yaml');
  const edit = async (from: string, to: string) => {
    const text = await readFile(fsFile, 'utf8');
    expect(text).toContain(from);
    const next = text.replace(from, to);
    await writeFile(fsFile, next);
    return next;
  };
  return { root, group, fsFile, edit };
}

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe("an FS's Alertmanager mapping", () => {
  it('is checked by the validator, with the line of each problem', async () => {
    const { root, group, edit } = await copyOfAd000002();
    await edit('      neighbor_as: peer_as\n', '      neighbour_as: peer_as\n');
    await edit("regex: '^(?<value>[^:]+)'", "regex: '^([^:]+)'");
    const text = await edit('      neighbor_ip: peer\n', '');
    const { group: g, issues } = await validateArtifactGroupDir(group);
    expect(g).toBeUndefined();
    const lines = issues.map((i) => formatIssue(i, root));
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^AD000002/FS.yaml:${lineOf(text, 'regex: \'^([^:]+)\'')}:\\d+: the regex needs a \\(\\?<value>…\\) group`)),
      expect.stringMatching(new RegExp(`^AD000002/FS.yaml:${lineOf(text, 'neighbour_as: peer_as')}:\\d+: neighbour_as is not a variable of the FS`)),
      expect.stringMatching(new RegExp(`^AD000002/FS.yaml:${lineOf(text, '    fields:')}:\\d+: required alert field neighbor_ip is not mapped to a label`)),
    ]);
  });

  it('refuses unknown keys and a match without labels (the FS schema)', async () => {
    const { group, edit } = await copyOfAd000002();
    await edit('    match:\n      alertname: BGPNeighborAdminDown\n', '    match: {}\n    matchers: []\n');
    const { issues } = await validateArtifactGroupDir(group);
    expect(issues.map((i) => i.message)).toEqual(
      expect.arrayContaining(['sources.alertmanager.match: name at least one label, e.g. alertname', 'sources.alertmanager: unknown key matchers']),
    );
  });

  it('applies to the next notification after the FS changes, and an invalid one is not used (and logged)', async () => {
    const { root, fsFile, edit } = await copyOfAd000002();
    const { logger, text } = captureLogger();
    const definitions = createAlertmanagerDefinitions(root, logger);
    expect((await definitions()).map((d) => [d.alert_def_id, d.match])).toEqual([['AD000002', { alertname: 'BGPNeighborAdminDown' }]]);

    await edit('alertname: BGPNeighborAdminDown', 'alertname: BgpPeerAdminDown');
    // The edit may land within the same mtime tick as the first read: make the change visible.
    const later = new Date(Date.now() + 5000);
    await utimes(fsFile, later, later);
    expect((await definitions())[0]?.match).toEqual({ alertname: 'BgpPeerAdminDown' });

    await edit('      device_hostname: { label: instance', '      device_hostnam: { label: instance');
    const evenLater = new Date(Date.now() + 10_000);
    await utimes(fsFile, evenLater, evenLater);
    expect(await definitions()).toEqual([]);
    expect(text()).toContain('mapping of');
    expect(text()).toContain('is invalid and not used');
  });
});
