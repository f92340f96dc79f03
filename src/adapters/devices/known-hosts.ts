import { createHash, createHmac } from 'node:crypto';
import { appendFile, readFile } from 'node:fs/promises';

/**
 * Host keys, checked against an OpenSSH known_hosts file (plain or hashed host names). There is no
 * trust-on-first-use: an unknown or changed key is refused, and `npm run devices -- trust <name>`
 * is the one way to add a key, after a person has compared its fingerprint.
 */
export type HostKeyVerdict = 'match' | 'unknown' | 'changed' | 'revoked';

/** `host` for port 22, `[host]:port` otherwise, as OpenSSH writes them. */
export const hostPattern = (host: string, port: number) => (port === 22 ? host : `[${host}]:${port}`);

/** The key's type, read from the SSH wire blob (a length-prefixed string). */
export function keyType(blob: Buffer): string {
  const len = blob.readUInt32BE(0);
  return blob.subarray(4, 4 + len).toString('ascii');
}

/** SHA256:… as `ssh-keygen -l` and OpenSSH's prompts show it. */
export const fingerprint = (blob: Buffer) => `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;

function hostMatches(field: string, pattern: string): boolean {
  if (field.startsWith('|1|')) {
    const [, , salt, hash] = field.split('|');
    if (!salt || !hash) return false;
    return createHmac('sha1', Buffer.from(salt, 'base64')).update(pattern).digest('base64') === hash;
  }
  return field.split(',').includes(pattern);
}

export async function checkHostKey(file: string, host: string, port: number, blob: Buffer): Promise<HostKeyVerdict> {
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return 'unknown';
  }
  const pattern = hostPattern(host, port);
  const presented = blob.toString('base64');
  let known = false;
  for (const raw of text.split('\n')) {
    const parts = raw.trim().split(/\s+/);
    if (!parts[0] || parts[0].startsWith('#')) continue;
    const marker = parts[0].startsWith('@') ? parts.shift() : undefined;
    const [hosts, , key] = parts;
    if (!hosts || !key || !hostMatches(hosts, pattern)) continue;
    if (marker === '@revoked') {
      if (key === presented) return 'revoked';
      continue;
    }
    if (marker) continue; // @cert-authority lines are not host keys
    if (key === presented) return 'match';
    known = true;
  }
  // Known by another key (of any type): refused as changed, as a swapped router or a MITM would look.
  return known ? 'changed' : 'unknown';
}

export async function trustHostKey(file: string, host: string, port: number, blob: Buffer): Promise<void> {
  await appendFile(file, `${hostPattern(host, port)} ${keyType(blob)} ${blob.toString('base64')}\n`, { mode: 0o600 });
}
