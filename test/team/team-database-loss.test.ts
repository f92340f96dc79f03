import type { Client } from 'pg';
import { Agent, request } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { dedupKeyOf } from '../../src/adapters/alert-sources/normalize';
import { inboundAlertSchema } from '../../src/adapters/alert-sources/schema';
import { NEW_INCIDENT_LOCK, newIncidentLockKey } from '../../src/adapters/team/new-incident-lock';
import { endRelayConnections, noPostgres, testConnection, untilDatabase, usePostgres } from '../helpers/postgres';
import type { RelayProcess } from '../helpers/relay-process';
import { auth, teamRelay } from './team-process';

/**
 * Relay processes whose database restarts (`pg_ctl restart -m immediate`) or ends their
 * connections (`pg_terminate_backend`): idle, in an alert storm, holding the team's new-incident
 * lock. Each stays up, refuses with 503 and Retry-After meanwhile, goes on by itself, and every
 * alert it answered 202 is counted in the database. TEAM_DB_LOSS_CYCLES=5 for more rounds.
 */
const pg = usePostgres();
const cycles = Math.max(1, Number(process.env.TEAM_DB_LOSS_CYCLES) || 2);
/** A safety net for a relay that never comes back, grown with the rounds asked for. */
const timeout = 30_000 * (cycles + 1);

/** The relay's last lines, for an assertion that it is still up (a crash says why there). */
const lastLines = (relay: RelayProcess) => `the relay's last lines:\n${relay.output.slice(-60).join('\n')}`;
const alive = (relay: RelayProcess) => relay.proc.exitCode === null && relay.proc.signalCode === null;

/**
 * A connection per alert, as Splunk's webhook makes them: a kept-alive socket the relay is just
 * closing (its idle timeout passes while the database is away) would fail a POST with no answer,
 * which reads as a crash here.
 */
const oneShot = new Agent({ pipelining: 0 });

/** Every answer the relay gave, and how many 202s each incident got. */
function tally() {
  const answers: { status: number; retryAfter: string | undefined }[] = [];
  const accepted = new Map<string, number>();
  /** Why a request got no answer at all (shown when an assertion fails). */
  const noAnswer: string[] = [];
  let onAccepted: (() => void) | undefined;
  return {
    answers,
    accepted,
    noAnswer,
    async post(relay: RelayProcess, neighbor: string): Promise<number> {
      const alert = buildSplunkAlert({ device: 'R1', neighbor });
      const sent = await request(`${relay.url}/fault-alert`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(alert), dispatcher: oneShot }).then(
        async (res) => ({ res, body: (await res.body.json()) as { incident_id?: string } }),
        // A relay that crashed answers nothing: status 0, which no assertion below lets pass.
        (error: unknown) => {
          noAnswer.push(`${neighbor}: ${(error as Error).message}`);
          return undefined;
        },
      );
      if (!sent) {
        answers.push({ status: 0, retryAfter: undefined });
        return 0;
      }
      const { res, body } = sent;
      const retryAfter = res.headers['retry-after'] as string | undefined;
      answers.push({ status: res.statusCode, retryAfter });
      if (res.statusCode === 202 && body.incident_id) {
        accepted.set(body.incident_id, (accepted.get(body.incident_id) ?? 0) + 1);
        onAccepted?.();
      }
      return res.statusCode;
    },
    /** Resolves at the next 202 the relay answers (to any sender), or when it has died (the caller asserts it lives). */
    nextAccepted: (relay: RelayProcess) =>
      alive(relay) ? Promise.race([new Promise<void>((resolve) => (onAccepted = resolve)), new Promise<void>((resolve) => relay.proc.once('exit', () => resolve()))]) : Promise.resolve(),
  };
}
type Tally = ReturnType<typeof tally>;

/** Splunk retrying one alert until it is accepted: the relay came back by itself. */
async function retriedUntilAccepted(relay: RelayProcess, t: Tally, neighbor = '10.0.0.2'): Promise<void> {
  for (let tries = 0; tries < 50 && alive(relay); tries++) if ((await t.post(relay, neighbor)) === 202) return;
  throw new Error(`the relay did not accept an alert again: ${JSON.stringify(t.answers.slice(-3))}`);
}

/** Nothing but 202, or 503 saying when to send again; and every 202 in the database, counted. */
async function expectEveryAcceptedCounted(db: Client, t: Tally): Promise<void> {
  expect(t.answers.filter((a) => a.status !== 202 && !(a.status === 503 && a.retryAfter === '5'))).toEqual([]);
  const rows = await db.query<{ incident_id: string; occurrences: number }>('SELECT incident_id, occurrences FROM incidents');
  const counted = new Map(rows.rows.map((r) => [r.incident_id, r.occurrences]));
  const lost = [...t.accepted].filter(([id, n]) => (counted.get(id) ?? 0) < n).map(([id, n]) => ({ id, accepted: n, counted: counted.get(id) ?? 0 }));
  expect(lost).toEqual([]);
  expect(t.accepted.size).toBeGreaterThan(0);
}

async function setUp() {
  const url = await pg.freshDatabase({ crashSafe: true });
  const relay = await teamRelay(url);
  const connect = async () => {
    const db = await testConnection(url);
    onTestFinished(() => db.end().catch(() => {}));
    return db;
  };
  return { url, relay, connect, t: tally() };
}

describe.skipIf(Boolean(noPostgres))(`team relay processes when the database goes away (${cycles} rounds each)`, { timeout }, () => {
  it('idle: restarted, stopped and its connections ended, the relay stays up, refuses meanwhile and goes on by itself', async () => {
    const { relay, connect, t } = await setUp();
    await retriedUntilAccepted(relay, t);
    for (let cycle = 0; cycle < cycles; cycle++) {
      await pg.server().restart('immediate');
      await retriedUntilAccepted(relay, t);
      expect(alive(relay), lastLines(relay)).toBe(true);

      const db = await connect();
      expect(await endRelayConnections(db)).toBeGreaterThan(0);
      await db.end();
      await retriedUntilAccepted(relay, t);
      expect(alive(relay), lastLines(relay)).toBe(true);

      // Away for a while: refused with Retry-After, the process still up.
      await pg.server().stop('immediate');
      try {
        expect(await t.post(relay, `10.9.${cycle}.1`)).toBe(503);
        expect(t.answers.at(-1)?.retryAfter).toBe('5');
        expect(alive(relay), lastLines(relay)).toBe(true);
      } finally {
        await pg.server().start();
      }
      await retriedUntilAccepted(relay, t, `10.9.${cycle}.1`);
    }
    await expectEveryAcceptedCounted(await connect(), t);
  });

  it('during an alert storm: restarted and its connections ended, no alert answered 202 is lost', async () => {
    const { relay, connect, t } = await setUp();
    let storming = true;
    // Four senders at once, twelve faults each repeated: new incidents (under the team's lock) and repeats.
    const senders = [0, 1, 2, 3].map(async (s) => {
      for (let n = 0; storming && alive(relay); n++) await t.post(relay, `10.1.${s}.${n % 3}`);
    });
    try {
      for (let cycle = 0; cycle < cycles; cycle++) {
        await t.nextAccepted(relay);
        await pg.server().restart('immediate');
        await t.nextAccepted(relay);
        const db = await connect();
        expect(await endRelayConnections(db)).toBeGreaterThan(0);
        await db.end();
        await t.nextAccepted(relay);
        expect(alive(relay), lastLines(relay)).toBe(true);
      }
    } finally {
      storming = false;
      await Promise.all(senders);
    }
    expect(alive(relay), lastLines(relay)).toBe(true);
    await expectEveryAcceptedCounted(await connect(), t);
  });

  it('holding or waiting for the new-incident lock: restarted or its connections ended, it stays up and goes on by itself', async () => {
    const { relay, connect, t } = await setUp();
    await retriedUntilAccepted(relay, t);
    const held = `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = ${NEW_INCIDENT_LOCK} AND objsubid = 2 AND granted AND pid <> pg_backend_pid())
                     AND EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'relation' AND NOT granted) AS ok`;
    const waited = `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = ${NEW_INCIDENT_LOCK} AND objsubid = 2 AND NOT granted) AS ok`;
    for (let cycle = 0; cycle < cycles; cycle++) {
      for (const [step, how, end] of [
        [0, 'ended', async (db: Client) => void (await endRelayConnections(db))],
        [1, 'restarted', () => pg.server().restart('immediate')],
      ] as const) {
        // A new fault each time (a repeat takes no lock). The relay holds the lock while its commit
        // of the new incident waits for this table lock.
        const db = await connect();
        await db.query('BEGIN');
        await db.query('LOCK TABLE incidents IN EXCLUSIVE MODE');
        const holding = t.post(relay, `10.2.${cycle}.${step}`);
        await untilDatabase(db, held);
        await end(db);
        await db.query('COMMIT').catch(() => {});
        await holding;
        expect(alive(relay), `after the database ${how} it while it held the lock`).toBe(true);
        await retriedUntilAccepted(relay, t, `10.2.${cycle}.${step}`);

        // The relay waits for the lock, which the test holds.
        const holder = await connect();
        // The new-incident lock of the fault sent next (the relay's lock is per fault).
        const lock = newIncidentLockKey(dedupKeyOf(inboundAlertSchema.parse(buildSplunkAlert({ device: 'R1', neighbor: `10.3.${cycle}.${step}` }))));
        await holder.query('SELECT pg_advisory_lock($1, $2)', lock);
        const waiting = t.post(relay, `10.3.${cycle}.${step}`);
        await untilDatabase(holder, waited);
        await end(holder);
        // Its wait was ended with its connection: refused, Splunk sends it again.
        // Status 0 is no answer at all; the relay's last lines say why.
        expect(await waiting, `${t.noAnswer.join('; ')}\nthe relay's last lines:\n${relay.output.slice(-15).join('\n')}`).toBe(503);
        await holder.end().catch(() => {});
        expect(alive(relay), `after the database ${how} it while it waited for the lock`).toBe(true);
        await retriedUntilAccepted(relay, t, `10.3.${cycle}.${step}`);
      }
    }
    await expectEveryAcceptedCounted(await connect(), t);
  });
});
