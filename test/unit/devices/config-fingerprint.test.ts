import { describe, expect, it } from 'vitest';
import { FingerprintMismatch, normalisedConfigLines, runningConfigFingerprint } from '../../../src/runbooks/config-fingerprint';
import { checkFingerprint, SeenConfigs } from '../../../src/adapters/devices/config-fingerprint';
import { DeviceError, NOTHING_SENT_KINDS } from '../../../src/adapters/devices/errors';

/** `show running-config` as FRR and IOS print it: the banner and comments move, the configuration does not. */
const read = (banner: string, stamp: string, extra = '') => `${banner}\r\n\nCurrent configuration : ${1000 + extra.length} bytes\n! Last configuration change at ${stamp} by admin\n! NVRAM config last updated at ${stamp}\n!\nhostname R1   \n!\nrouter bgp 65001\n neighbor 10.0.0.2 remote-as 65002\n neighbor 10.0.0.2 shutdown\n${extra}!\nend\n`;

describe('the configuration fingerprint', () => {
  it('reading an unchanged device twice gives the same fingerprint, whatever its banner, clock and comments say', () => {
    const a = runningConfigFingerprint(read('Building configuration...', '10:00:01 UTC Sat Nov 28 2026'));
    const b = runningConfigFingerprint(read('Building configuration...\n', '10:07:43 UTC Sat Nov 28 2026'));
    expect(a).toEqual(b);
    expect(a).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), source: 'running-config' });
    expect(normalisedConfigLines(read('Building configuration...', 'x'))).toEqual(['hostname R1', 'router bgp 65001', ' neighbor 10.0.0.2 remote-as 65002', ' neighbor 10.0.0.2 shutdown', 'end']);
  });

  it('one changed line changes it, an indented one too', () => {
    const base = runningConfigFingerprint(read('Building configuration...', 't')).sha256;
    expect(runningConfigFingerprint(read('Building configuration...', 't', ' neighbor 10.0.0.2 description by-hand\n')).sha256).not.toBe(base);
    expect(runningConfigFingerprint(read('Building configuration...', 't').replace(' neighbor 10.0.0.2 shutdown', '  neighbor 10.0.0.2 shutdown')).sha256).not.toBe(base);
  });

  it('a device that changed since the preview: nothing is sent, and the error says what changed, as + and - lines under their parents', () => {
    const seen = new SeenConfigs();
    const expected = seen.remember('R1', normalisedConfigLines(read('Building configuration...', 't')));
    const now = read('Building configuration...', 'later', ' neighbor 10.0.0.2 description by-hand\n').replace(' neighbor 10.0.0.2 shutdown\n', '');
    let thrown: unknown;
    try {
      checkFingerprint('R1', expected, normalisedConfigLines(now), seen);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DeviceError);
    const e = thrown as DeviceError;
    expect(e.kind).toBe('fingerprint_mismatch');
    expect(e.reached).toBe(false);
    expect(NOTHING_SENT_KINDS.has(e.kind)).toBe(true);
    const detail = FingerprintMismatch.parse(e.detail);
    expect(detail).toMatchObject({ device: 'R1', before_sha256: expected, now_sha256: runningConfigFingerprint(now).sha256, diff_known: true, changed_total: 2 });
    expect(detail.changed).toEqual(['- router bgp 65001 › neighbor 10.0.0.2 shutdown', '+ router bgp 65001 › neighbor 10.0.0.2 description by-hand']);
    // As previewed: no error.
    expect(() => checkFingerprint('R1', expected, normalisedConfigLines(read('Building configuration...', 'much later')), seen)).not.toThrow();
  });

  it('without the previewed configuration (another server, a restart) the mismatch carries the hashes alone', () => {
    const expected = runningConfigFingerprint(read('B', 't')).sha256;
    const e = (() => {
      try {
        checkFingerprint('R1', expected, normalisedConfigLines(read('B', 't', 'ip route 0.0.0.0/0 192.0.2.1\n')), new SeenConfigs());
      } catch (error) {
        return error as DeviceError;
      }
      return undefined;
    })();
    expect(FingerprintMismatch.parse(e?.detail)).toMatchObject({ diff_known: false, changed: [], changed_total: 0 });
  });

  it("the summary never carries the device's secrets: a changed neighbor password shows as changed, without its value", () => {
    const seen = new SeenConfigs();
    const expected = seen.remember('R1', ['router bgp 65001', ' neighbor 10.0.0.2 password old-secret']);
    let detail: unknown;
    try {
      checkFingerprint('R1', expected, ['router bgp 65001', ' neighbor 10.0.0.2 password n3w-s3cret'], seen);
    } catch (error) {
      detail = (error as DeviceError).detail;
    }
    const { changed } = FingerprintMismatch.parse(detail);
    expect(changed).toEqual(['- router bgp 65001 › neighbor 10.0.0.2 password [redacted]', '+ router bgp 65001 › neighbor 10.0.0.2 password [redacted]']);
    expect(JSON.stringify(detail)).not.toMatch(/old-secret|n3w-s3cret/);
  });

  it('keeps only a few configurations per device', () => {
    const seen = new SeenConfigs();
    const shas = [1, 2, 3, 4, 5].map((n) => seen.remember('R1', [`hostname R${n}`]));
    expect(seen.get('R1', shas[0]!)).toBeUndefined();
    expect(seen.get('R1', shas[4]!)).toEqual(['hostname R5']);
    expect(seen.get('R2', shas[4]!)).toBeUndefined();
  });
});
