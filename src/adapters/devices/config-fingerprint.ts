import { configSha256, MISMATCH_LINES, type FingerprintMismatch } from '../../runbooks/config-fingerprint';
import { redactDeviceSecrets } from '../../core/incidents/evidence-redact';
import { describeDifference } from './config-diff';
import { DeviceError } from './errors';

/** How many configurations a device tool server keeps per device for the summary of a mismatch. */
const KEPT_PER_DEVICE = 4;

/**
 * The configurations previews were computed against, by device and fingerprint, so that a change
 * refused because the device changed meanwhile can say what changed. Memory only and a few per
 * device: without one (a restart, another server) the mismatch carries the hashes alone.
 */
export class SeenConfigs {
  private readonly byDevice = new Map<string, Map<string, string[]>>();

  remember(device: string, lines: string[]): string {
    const sha = configSha256(lines);
    const kept = this.byDevice.get(device) ?? new Map<string, string[]>();
    kept.delete(sha);
    kept.set(sha, lines);
    while (kept.size > KEPT_PER_DEVICE) kept.delete(kept.keys().next().value!);
    this.byDevice.set(device, kept);
    return sha;
  }

  get(device: string, sha: string): string[] | undefined {
    return this.byDevice.get(device)?.get(sha);
  }
}

/**
 * What differs between the configuration previewed and the one read now, as `+ new` and `- gone`
 * lines, with the device's secrets (a neighbor's password, a community) taken out: the summary goes
 * to the timeline and the agent.
 */
export function mismatchOf(device: string, expected: string, now: string[], seen?: SeenConfigs): FingerprintMismatch {
  const before = seen?.get(device, expected);
  const diff = before ? describeDifference(before.join('\n'), now.join('\n')).map((l) => l.replace(/^missing: /, '- ').replace(/^extra: /, '+ ')) : [];
  return {
    kind: 'fingerprint_mismatch',
    device,
    before_sha256: expected,
    now_sha256: configSha256(now),
    changed: diff.slice(0, MISMATCH_LINES).map((l) => redactDeviceSecrets(l.length > 400 ? `${l.slice(0, 399)}…` : l).text),
    changed_total: diff.length,
    diff_known: before !== undefined,
  };
}

/**
 * Before the first line of a change: the configuration just read (normalised: CLI text by
 * normalisedConfigLines, a NETCONF datastore as its leaf lines) must be the one the approved
 * preview was computed against. Otherwise nothing is sent, and the error says what changed.
 */
export function checkFingerprint(device: string, expected: string | undefined, now: string[], seen?: SeenConfigs): void {
  if (!expected) return;
  if (configSha256(now) === expected) return;
  const mismatch = mismatchOf(device, expected, now, seen);
  throw new DeviceError(
    'fingerprint_mismatch',
    `${device}: the configuration changed since the preview the approval was given on (sha256 ${expected.slice(0, 12)} then, ${mismatch.now_sha256.slice(0, 12)} now); nothing was sent`,
    false,
    { detail: mismatch },
  );
}
