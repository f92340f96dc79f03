import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { errorText } from '../error-body';

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
  /** Their Slack member id (U… or W…): a Slack click counts by this id, never by a display name. */
  slack_user_id: z.string().regex(/^[UW][A-Z0-9]{2,}$/, 'a Slack member id such as U012AB3CD').optional(),
  /** Their account on the machine where they run the tray or `npm run headed`: decisions there count as theirs. */
  os_user: z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/, 'an account name such as ana or a.ruiz').optional(),
  /** The change policy's groups this person belongs to (tier1, change-manager …): a class's approvals count only from its groups. */
  groups: z.array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a group name such as tier2 or change-manager')).optional(),
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
    throw new OperatorsError(`${path}: not YAML: ${errorText(error).split('\n')[0]}`);
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
  return parseOperators(readOperatorsText(path), path);
}

function readOperatorsText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new OperatorsError(`cannot read OPERATORS_FILE ${path}: ${(error as NodeJS.ErrnoException).code ?? errorText(error)}`);
  }
}

export interface OperatorDirectory {
  /** The operator whose personal token this is, compared in constant time; undefined for any other. */
  byToken(token: string): Operator | undefined;
  /** The operator listed under this e-mail (any case) right now; undefined once removed. */
  byEmail(email: string): Operator | undefined;
  /** The operator with this Slack member id right now; undefined for anyone else. */
  bySlackId?(userId: string): Operator | undefined;
  /** The operator whose `os_user` this account is (the tray's and the headed terminal's user). */
  byOsUser?(account: string): Operator | undefined;
  /** How many approvers are listed right now: with one, the API is a live approval channel. */
  approvers(): number;
  /** How many approvers are in at least one of these groups right now: who can meet a policy rule. */
  approversIn?(groups: readonly string[]): number;
  readonly size: number;
}

export function createOperatorDirectory(operators: readonly Operator[]): OperatorDirectory {
  const entries = operators.map((op) => ({ op, digest: Buffer.from(op.token_sha256, 'hex') }));
  const emails = new Map(operators.map((op) => [op.email.toLowerCase(), op]));
  return {
    size: entries.length,
    byToken(token) {
      const given = createHash('sha256').update(token).digest();
      let found: Operator | undefined;
      // Every entry is compared, so the time taken says nothing about which one matched.
      for (const e of entries) if (timingSafeEqual(given, e.digest)) found = e.op;
      return found;
    },
    byEmail: (email) => emails.get(email.toLowerCase()),
    bySlackId: (userId) => operators.find((op) => op.slack_user_id === userId),
    byOsUser: (account) => operators.find((op) => op.os_user === account),
    approvers: () => operators.filter((op) => op.role === 'approver').length,
    approversIn: (groups) => operators.filter((op) => op.role === 'approver' && (op.groups ?? []).some((g) => groups.includes(g))).length,
  };
}

export interface OperatorsFileLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * OPERATORS_FILE as a directory that follows the file. Read at once (a broken file throws: the relay
 * does not start on it), then every lookup compares the file's identity (inode, size, change times)
 * with the last read and reads it again when it changed. A stat per lookup is cheap and, unlike a
 * file watcher, has no delay: removing a person, a new token or a role change holds from that
 * person's very next request, cookie or token. A file that turns unreadable or invalid lets no
 * personal token in until it is fixed (failing open could keep a removed person in).
 */
export function openOperatorsFile(path: string, log?: OperatorsFileLog): OperatorDirectory {
  let seen = identity(path);
  let text: string | undefined = readOperatorsText(path);
  let current = createOperatorDirectory(parseOperators(text, path));
  const fresh = (): OperatorDirectory => {
    const now = identity(path);
    if (now.key === seen.key && seen.settled) return current;
    seen = now;
    let next: string | undefined;
    try {
      next = readOperatorsText(path);
    } catch {
      next = undefined;
    }
    // Unchanged text (a touch, or the recheck of a recent write): nothing to do.
    if (next !== undefined && next === text) return current;
    text = next;
    try {
      if (next === undefined) throw new OperatorsError(`cannot read OPERATORS_FILE ${path}`);
      current = createOperatorDirectory(parseOperators(next, path));
      log?.info({ operators: current.size }, 'OPERATORS_FILE changed: read again');
    } catch (error) {
      current = createOperatorDirectory([]);
      log?.error({ problem: errorText(error) }, 'OPERATORS_FILE changed and is not valid: no personal token is accepted until it is fixed');
    }
    return current;
  };
  return {
    byToken: (token) => fresh().byToken(token),
    byEmail: (email) => fresh().byEmail(email),
    bySlackId: (userId) => fresh().bySlackId?.(userId),
    byOsUser: (account) => fresh().byOsUser?.(account),
    approvers: () => fresh().approvers(),
    approversIn: (groups) => fresh().approversIn?.(groups) ?? 0,
    get size() {
      return fresh().size;
    },
  };
}

/**
 * What changes whenever the file is rewritten in place or replaced (an editor's rename). File times
 * tick coarsely (milliseconds, seconds on some file systems): two same-sized writes within one tick
 * look alike, so a file written in the last two seconds is not `settled` and its text is compared too.
 */
function identity(path: string): { key: string; settled: boolean } {
  try {
    const s = statSync(path, { bigint: true });
    const changedMs = Number((s.mtimeNs > s.ctimeNs ? s.mtimeNs : s.ctimeNs) / 1_000_000n);
    return { key: `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`, settled: Date.now() - changedMs > 2000 };
  } catch (error) {
    return { key: `missing:${(error as NodeJS.ErrnoException).code ?? ''}`, settled: true };
  }
}
