import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadArtifactGroup } from '../../../src/runbooks/load';
import { planPostCheck, type PostCheckPlan } from '../../../src/core/changes/post-check';

const artifacts = join(__dirname, '../../../intelligence-artifacts');

/** `show running-config` of a NETCONF device with the lab's BGP module, as the device service returns it. */
const running = (neighbor: string) => `<data xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">
  <bgp xmlns="urn:fault-relay:lab:bgp">
    <as>65001</as>
    ${neighbor}
    <neighbor>
      <address>10.0.0.3</address>
      <remote-as>65003</remote-as>
      <shutdown>true</shutdown>
    </neighbor>
  </bgp>
</data>
`;
const neighbor = (shutdown?: boolean) =>
  `<neighbor>\n      <address>10.0.0.2</address>\n      <remote-as>65002</remote-as>\n${shutdown === undefined ? '' : `      <shutdown>${shutdown}</shutdown>\n`}    </neighbor>`;

describe('the post-check on a NETCONF device', () => {
  const plan = async () => {
    const { raw } = await loadArtifactGroup(artifacts, 'AD000002');
    return planPostCheck(raw, { device_hostname: 'PE1', neighbor_ip: '10.0.0.2', device_platform: 'netconf' }) as PostCheckPlan;
  };

  it("is the RAW's netconf revalidate step: show running-config, after the RAW's wait", async () => {
    expect(await plan()).toMatchObject({ step: 'revalidate_established', command: 'show running-config', waitS: 10, attempts: 6, intervalS: 10 });
  });

  it('passes when running has the neighbor and it is no longer shut (explicit false, or the default)', async () => {
    const p = await plan();
    expect(p.check(running(neighbor(false)))).toEqual({ ok: true, failed: [] });
    expect(p.check(running(neighbor()))).toEqual({ ok: true, failed: [] });
  });

  it('fails while the neighbor is still shut, or when it is gone, and names what failed', async () => {
    const p = await plan();
    const shut = p.check(running(neighbor(true)));
    expect(shut.ok).toBe(false);
    expect(shut.failed.join(' ')).toMatch(/shutdown>true/);
    // Another neighbor's shutdown is not this one's: it only matters that 10.0.0.2 is gone.
    const gone = p.check(running(''));
    expect(gone.ok).toBe(false);
    expect(gone.failed.join(' ')).toMatch(/10\.0\.0\.2/);
  });
});
