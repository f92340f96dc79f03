import { FingerprintMismatch } from '../../runbooks/config-fingerprint';
import { DeviceToolError } from './device-contract';
import type { Incident } from '../incidents/model';
import type { Incidents } from '../incidents/service';
import { redactDeviceSecrets } from '../incidents/evidence-redact';
import { entries } from '../events/timeline-entries';

/** The configuration fingerprint the approved preview was computed against, when the preview had one. */
export function approvedFingerprint(incident: Incident | undefined): string | undefined {
  return incident?.approval_request?.preview?.fingerprint?.sha256;
}

/**
 * A device tool server's refusal because the device changed since the preview: its detail when it
 * parses, else the hashes alone (an unparsed summary is never shown). Undefined for any other error.
 */
export type Mismatch = Omit<FingerprintMismatch, 'now_sha256'> & { now_sha256: string | null };

export function mismatchOf(error: unknown, device: string, expected: string): Mismatch | undefined {
  if (!(error instanceof DeviceToolError) || error.failure.kind !== 'fingerprint_mismatch') return undefined;
  const parsed = FingerprintMismatch.safeParse(error.failure.detail);
  // The server takes device secrets out of its summary; a server that did not is not trusted to have.
  if (parsed.success && parsed.data.before_sha256 === expected) return { ...parsed.data, device, changed: parsed.data.changed.map((l) => redactDeviceSecrets(l).text) };
  return { kind: 'fingerprint_mismatch', device, before_sha256: expected, now_sha256: null, changed: [], changed_total: 0, diff_known: false };
}

/**
 * Records the refused change (`change.fingerprint_mismatch`) and words the answer: nothing was sent,
 * the approval is void, a new preview and decision are needed. The changed lines are the device's
 * configuration, shown quoted as such.
 */
export function recordMismatch(incidents: Incidents, incidentId: string, m: Mismatch): string {
  const what = m.changed.length
    ? `What changed (relay's diff of the configuration, "+" new since the preview, "-" gone since): ${m.changed.map((l) => JSON.stringify(l)).join(', ')}${m.changed_total > m.changed.length ? ` and ${m.changed_total - m.changed.length} more` : ''}.`
    : 'The configuration the preview read is no longer held, so only the hashes are known.';
  const message = `Not applied on ${m.device}: its configuration changed since the preview the approval was given on (sha256 ${m.before_sha256.slice(0, 12)} then, ${m.now_sha256 ? m.now_sha256.slice(0, 12) : 'not given'} now). Nothing was sent; the approval is void. ${what}`;
  incidents.record(incidentId, entries.changeFingerprintMismatch, message, {
    device: m.device,
    before_sha256: m.before_sha256,
    now_sha256: m.now_sha256,
    changed: m.changed,
    changed_total: m.changed_total,
  });
  return `${message} Someone else changed the device meanwhile: read it again, and request a new approval (a new preview and decision) for the lines that fit it now, or escalate.`;
}

/** The server checked the fingerprint before the first line and it matched (it echoes what it checked). */
export function recordMatch(incidents: Incidents, incidentId: string, device: string, expected: string, checked: string | undefined): void {
  if (checked === expected) {
    incidents.record(incidentId, entries.changeFingerprintChecked, `The configuration of ${device} was read again before the change: as previewed (sha256 ${expected.slice(0, 12)})`, { device, before_sha256: expected, now_sha256: checked, match: true });
  } else {
    incidents.record(incidentId, entries.changeFingerprintChecked, `The device tool server did not confirm it checked the configuration of ${device} against the preview's (sha256 ${expected.slice(0, 12)})`, { device, before_sha256: expected, now_sha256: null, match: null });
  }
}
