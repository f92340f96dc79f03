import { createHmac, generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkHostKey, fingerprint, trustHostKey } from '../../../src/adapters/devices/known-hosts';
import { tempDir } from '../../helpers/temp-dir';

/** An ssh-ed25519 wire blob: string "ssh-ed25519", string <32-byte key>. */
function blob(): Buffer {
  const raw = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const str = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return Buffer.concat([str(Buffer.from('ssh-ed25519')), str(raw)]);
}

describe('known hosts', () => {
  it('matches a trusted key, refuses an unknown host and a changed key', async () => {
    const file = join(tempDir('fault-relay-kh-'), 'known_hosts');
    const key = blob();
    expect(await checkHostKey(file, '127.0.0.1', 2201, key)).toBe('unknown');
    await trustHostKey(file, '127.0.0.1', 2201, key);
    expect(await checkHostKey(file, '127.0.0.1', 2201, key)).toBe('match');
    expect(await checkHostKey(file, '127.0.0.1', 2201, blob())).toBe('changed');
    expect(await checkHostKey(file, '127.0.0.1', 2202, key)).toBe('unknown');
  });

  it('reads OpenSSH hashed host names and @revoked keys', async () => {
    const file = join(tempDir('fault-relay-kh-'), 'known_hosts');
    const key = blob();
    const salt = Buffer.from('0123456789abcdef0123');
    const hash = createHmac('sha1', salt).update('router1.example.net').digest('base64');
    writeFileSync(file, `|1|${salt.toString('base64')}|${hash} ssh-ed25519 ${key.toString('base64')}\n`);
    expect(await checkHostKey(file, 'router1.example.net', 22, key)).toBe('match');
    const revoked = blob();
    writeFileSync(file, `@revoked * ssh-ed25519 ${revoked.toString('base64')}\n@revoked router2 ssh-ed25519 ${revoked.toString('base64')}\n`);
    expect(await checkHostKey(file, 'router2', 22, revoked)).toBe('revoked');
  });

  it('prints fingerprints as OpenSSH does', () => {
    expect(fingerprint(Buffer.from('x'))).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });
});
