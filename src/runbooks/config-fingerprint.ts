import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * The device configuration a preview was computed against, as a SHA-256 (NSO's no-overwrite): the
 * device tool server compares it with the configuration it reads just before a change, and sends
 * nothing when someone else changed the device in between. One definition for the relay and the
 * device tool servers (SSH/NETCONF and the simulated lab).
 */
export const SHA256_HEX = /^[0-9a-f]{64}$/;
const sha256 = z.string().regex(SHA256_HEX, 'a SHA-256 as 64 lowercase hex digits');

export const ConfigFingerprint = z.object({
  sha256,
  /** What was read: the running configuration's text (CLI devices) or the NETCONF running datastore. */
  source: z.enum(['running-config', 'netconf-running']),
});
export type ConfigFingerprint = z.infer<typeof ConfigFingerprint>;

/** At most this many changed lines are carried in a mismatch: a summary, not the configuration. */
export const MISMATCH_LINES = 20;

/** A change refused because the device's configuration is no longer the one the preview read. */
export const FingerprintMismatch = z.object({
  kind: z.literal('fingerprint_mismatch'),
  device: z.string().min(1).max(253),
  before_sha256: sha256,
  now_sha256: sha256,
  /** `+ line` (new since the preview) and `- line` (gone since), parents joined with ` › `. */
  changed: z.array(z.string().max(400)).max(MISMATCH_LINES),
  /** How many lines differ in all (more than `changed` shows when the summary was cut). */
  changed_total: z.number().int().min(0),
  /** False when the server no longer held the configuration the preview read: only the hashes are known. */
  diff_known: z.boolean(),
});
export type FingerprintMismatch = z.infer<typeof FingerprintMismatch>;

/**
 * Lines that change when the configuration does not: the banner `show running-config` prints around
 * it ("Building configuration...", "Current configuration : N bytes") and comment lines, where IOS
 * writes when and by whom it last changed, NX-OS the time, others an uptime. Comments are never
 * configuration on these platforms.
 */
const VOLATILE = [/^Building configuration/i, /^Current configuration\b/i, /^!/, /^Time:/i];

/** The configuration as compared: without volatile lines, line ends and trailing space, blank lines. */
export function normalisedConfigLines(text: string): string[] {
  return text
    .replace(/\r/g, '')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '' && !VOLATILE.some((v) => v.test(l.trim())));
}

/** SHA-256 of the normalised lines: reading an unchanged device twice gives the same value. */
export function configSha256(lines: readonly string[]): string {
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

export const runningConfigFingerprint = (text: string): ConfigFingerprint => ({ sha256: configSha256(normalisedConfigLines(text)), source: 'running-config' });
