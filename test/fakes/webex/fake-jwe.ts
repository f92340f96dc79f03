import { randomBytes } from 'node:crypto';

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/**
 * What card inputs look like on the real socket: a compact JWE (`dir` + A256GCM under a KMS key).
 * Nothing can decrypt it, so a client that wants the plaintext has to ask REST.
 */
export function fakeJwe(kid: string): string {
  const header = b64url(JSON.stringify({ alg: 'dir', enc: 'A256GCM', kid }));
  return `${header}..${b64url(randomBytes(12))}.${b64url(randomBytes(64))}.${b64url(randomBytes(16))}`;
}
