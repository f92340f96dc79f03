import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Operator, OperatorDirectory } from '../core/operators/operators';

/** Where a local operator's e-mail lives: a reserved name, so no OPERATORS_FILE entry or mail system can hold it. */
const LOCAL_DOMAIN = 'this-laptop.invalid';

/**
 * The person at the laptop relay's terminal: an approver, like the tray's user, known by the OS
 * user name. Their token hash is of random bytes nobody holds, so no bearer ever matches it: they
 * come in only through a one-time sign-in link.
 */
export function localOperator(user: string): Operator {
  const safe = user.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64) || 'operator';
  return { name: user || 'operator', email: `${safe.toLowerCase()}@${LOCAL_DOMAIN}`, role: 'approver', token_sha256: createHash('sha256').update(randomBytes(32)).digest('hex') };
}

/** One-time sign-in links for one person: each token is exchanged once for a `/ui` session, then forgotten. */
export interface SignInLinks {
  readonly operator: Operator;
  /** A new single-use token; the relay keeps only its digest. */
  issue(): string;
  /** The operator when this token was issued and not used yet; it is spent either way it matched. */
  redeem(token: string): Operator | undefined;
  /** Whether the token is an unused link, without spending it (the failed-authentication limiter asks). */
  holds(token: string): boolean;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export function createSignInLinks(operator: Operator): SignInLinks {
  const unused: Buffer[] = [];
  return {
    operator,
    issue() {
      const token = `frs_${randomBytes(24).toString('base64url')}`;
      unused.push(digest(token));
      return token;
    },
    holds(token) {
      const given = digest(token);
      let found = false;
      unused.forEach((d) => {
        if (timingSafeEqual(d, given)) found = true;
      });
      return found;
    },
    redeem(token) {
      const given = digest(token);
      let found = -1;
      // Every entry is compared, so the time taken says nothing about which one matched.
      unused.forEach((d, i) => {
        if (timingSafeEqual(d, given)) found = i;
      });
      if (found < 0) return undefined;
      unused.splice(found, 1);
      return operator;
    },
  };
}

/** The operators file's people (if any) and the local operator beside them, looked up as one team. */
export function withOperator(base: OperatorDirectory | undefined, extra: Operator): OperatorDirectory {
  const mine = (email: string) => email.toLowerCase() === extra.email;
  return {
    // The local operator's token is never issued: only the file's people have bearer tokens.
    byToken: (token) => base?.byToken(token),
    byEmail: (email) => (mine(email) ? extra : base?.byEmail(email)),
    bySlackId: (userId) => base?.bySlackId?.(userId),
    byOsUser: (account) => base?.byOsUser?.(account),
    approvers: () => (base?.approvers() ?? 0) + 1,
    approversIn: (groups) => (base?.approversIn?.(groups) ?? 0) + ((extra.groups ?? []).some((g) => groups.includes(g)) ? 1 : 0),
    get size() {
      return (base?.size ?? 0) + 1;
    },
  };
}
