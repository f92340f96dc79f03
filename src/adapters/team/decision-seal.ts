import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../../config/load';
import { DECISION_KEY_MIN_CHARS, type RelayConfig } from '../../config/schema';
import { canonicalJson } from '../../core/incidents/evidence-manifest';

/**
 * Decisions and confirms cross the team database from the relay that took them to the relay that
 * owns the incident. Anyone who can write to the database could write such a row too, so each row
 * carries an HMAC under a key the relays hold and the database does not (TEAM_DECISION_KEY), over
 * everything the owner acts on: the owner recomputes it from its own copy of the incident and
 * applies the row only when it matches.
 */

/** What a decision row's MAC covers: the request and its lines as the owner holds them, and the row's own words. */
export interface SealedDecision {
  incident_id: string;
  request_id: string;
  lines_sha256: string;
  decision: string;
  by_name: string;
  decided_at: string;
  channel: string;
  comment: string | null;
}

/** What a vote row's MAC covers: the request and its lines as the owner holds them, who approved, where and when. */
export interface SealedVote {
  incident_id: string;
  request_id: string;
  lines_sha256: string;
  by_name: string;
  channel: string;
  voted_at: string;
}

/** What a confirm row's MAC covers: the change (and the lines approved for it), who confirmed and when. */
export interface SealedConfirm {
  incident_id: string;
  change_id: string;
  lines_sha256: string;
  by_name: string;
  requested_at: string;
}

/** What the MAC of the owner's answer to a confirm covers: which confirm, when, and the answer itself. */
export interface SealedConfirmResult {
  incident_id: string;
  change_id: string;
  applied_at: string;
  result: unknown;
}

export interface DecisionSeal {
  decision(row: SealedDecision): string;
  vote(row: SealedVote): string;
  confirm(row: SealedConfirm): string;
  confirmResult(row: SealedConfirmResult): string;
  /** Whether `given` (a row's `mac`, possibly missing) is the MAC expected: compared in constant time. */
  verifies(expected: string, given: string | null | undefined): boolean;
}

export function createDecisionSeal(key: string): DecisionSeal {
  if (key.length < DECISION_KEY_MIN_CHARS) throw new ConfigError([`TEAM_DECISION_KEY: at least ${DECISION_KEY_MIN_CHARS} characters`]);
  // JSON of an array: no field can run into the next, whatever characters a value carries.
  const mac = (parts: readonly (string | null)[]) => createHmac('sha256', key).update(JSON.stringify(parts)).digest('base64url');
  return {
    decision: (r) => mac(['fault-relay/decision/v1', r.incident_id, r.request_id, r.lines_sha256, r.decision, r.by_name, r.decided_at, r.channel, r.comment]),
    vote: (r) => mac(['fault-relay/vote/v1', r.incident_id, r.request_id, r.lines_sha256, 'APPROVED', r.by_name, r.voted_at, r.channel]),
    confirm: (r) => mac(['fault-relay/confirm/v1', r.incident_id, r.change_id, r.lines_sha256, 'CONFIRM', r.by_name, r.requested_at]),
    // Canonical JSON: the database (jsonb) gives the answer back with its keys in its own order.
    confirmResult: (r) => mac(['fault-relay/confirm-result/v1', r.incident_id, r.change_id, r.applied_at, canonicalJson(r.result ?? null)]),
    verifies(expected, given) {
      if (typeof given !== 'string') return false;
      const a = Buffer.from(expected);
      const b = Buffer.from(given);
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}

/**
 * The team's decision key from TEAM_DECISION_KEY or the file TEAM_DECISION_KEY_FILE names (one
 * trailing newline ignored). Errors name the setting and the file, never a value.
 */
export function readDecisionKey(config: Pick<RelayConfig, 'TEAM_DECISION_KEY' | 'TEAM_DECISION_KEY_FILE'>): string {
  if (config.TEAM_DECISION_KEY) return config.TEAM_DECISION_KEY;
  const file = config.TEAM_DECISION_KEY_FILE;
  if (!file) throw new ConfigError(['TEAM_DECISION_KEY: required with DATABASE_URL (or TEAM_DECISION_KEY_FILE)']);
  let key: string;
  try {
    key = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new ConfigError([`TEAM_DECISION_KEY_FILE: ${file} could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`]);
  }
  if (key.trim().length < DECISION_KEY_MIN_CHARS) throw new ConfigError([`TEAM_DECISION_KEY_FILE: ${file} holds fewer than ${DECISION_KEY_MIN_CHARS} characters (e.g. openssl rand -base64 32 > ${file})`]);
  return key;
}
