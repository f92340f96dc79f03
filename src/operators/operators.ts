import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';

/**
 * The on-call team: who may decide (approvers) and who may only watch (viewers), each with a personal
 * token the relay knows only by its SHA-256. The file is safe to share: no token is in it.
 */
export const OPERATOR_ROLES = ['approver', 'viewer'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

const operatorSchema = z.strictObject({
  name: z.string().trim().min(1),
  email: z.email(),
  role: z.enum(OPERATOR_ROLES, { error: 'approver or viewer' }),
  token_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'the SHA-256 of the token, 64 lowercase hex characters (npm run operators -- token prints one); never the token itself'),
});
export type Operator = z.infer<typeof operatorSchema>;

const fileSchema = z.strictObject({ operators: z.array(operatorSchema).min(1, 'at least one operator') });

export class OperatorsError extends Error {}

export const tokenDigest = (token: string) => createHash('sha256').update(token).digest('hex');

/** A new personal token and the line that goes into the operators file (the token is shown once). */
export function newToken(): { token: string; sha256: string } {
  const token = `frp_${randomBytes(24).toString('base64url')}`;
  return { token, sha256: tokenDigest(token) };
}

export function parseOperators(text: string, path: string): Operator[] {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    throw new OperatorsError(`${path}: not YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '') || 'file'}: ${i.message}`);
    throw new OperatorsError(`${path}:\n${lines.join('\n')}`);
  }
  const emails = new Set<string>();
  const tokens = new Map<string, string>();
  for (const op of parsed.data.operators) {
    const email = op.email.toLowerCase();
    if (emails.has(email)) throw new OperatorsError(`${path}: ${op.email} is listed twice`);
    emails.add(email);
    const other = tokens.get(op.token_sha256);
    if (other) throw new OperatorsError(`${path}: ${op.email} and ${other} share a token: each person needs their own`);
    tokens.set(op.token_sha256, op.email);
  }
  return parsed.data.operators;
}

export function loadOperators(path: string): Operator[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new OperatorsError(`cannot read OPERATORS_FILE ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parseOperators(text, path);
}

export interface OperatorDirectory {
  /** The operator whose personal token this is, compared in constant time; undefined for any other. */
  byToken(token: string): Operator | undefined;
  size: number;
}

export function createOperatorDirectory(operators: readonly Operator[]): OperatorDirectory {
  const entries = operators.map((op) => ({ op, digest: Buffer.from(op.token_sha256, 'hex') }));
  return {
    size: entries.length,
    byToken(token) {
      const given = createHash('sha256').update(token).digest();
      let found: Operator | undefined;
      // Every entry is compared, so the time taken says nothing about which one matched.
      for (const e of entries) if (timingSafeEqual(given, e.digest)) found = e.op;
      return found;
    },
  };
}
