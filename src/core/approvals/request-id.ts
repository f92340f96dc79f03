import { randomBytes } from 'node:crypto';

/**
 * An approval request's id: short enough to read out on a call ("request 7KQ2-M9XD"), random so a
 * model or an old card cannot guess the next one. Crockford's alphabet: no I, L, O, U to misread.
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function newRequestId(): string {
  const bytes = randomBytes(8);
  const chars = [...bytes].map((b) => ALPHABET[b % 32]).join('');
  return `REQ-${chars.slice(0, 4)}-${chars.slice(4, 8)}`;
}

export const REQUEST_ID_PATTERN = /^REQ-[0-9A-Z]{4}-[0-9A-Z]{4}$/;
