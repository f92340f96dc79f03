import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileBackends } from '../../src/core/incidents/file-backend';
import type { Incident } from '../../src/core/incidents/model';
import { createPersistentStore } from '../../src/core/incidents/persistent-store';
import type { IncidentStore } from '../../src/core/incidents/store';
import { silent } from '../helpers/relay';
import { tempDir } from '../helpers/temp-dir';
import { incident } from './store-contract';

const MANY = 20_000;

const open = (dir: string, retention = MANY, compactAtBytes?: number) => {
  const b = createFileBackends(dir);
  return createPersistentStore({ backend: b.open, archive: b.archive, timelineDir: join(dir, 'timelines'), retention, logger: silent, ...(compactAtBytes ? { compactAtBytes } : {}) });
};

/** Incident n: every tenth still open, the rest finished; each counted a different number of times. */
const nth = (n: number): Incident => {
  const at = new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString();
  return incident(n, n % 10 === 0 ? 'running' : 'resolved', { created_at: at, updated_at: at, last_seen: at, occurrences: 1 + (n % 7), session_id: `ses_${n}` });
};

/** Writes MANY incidents as the relay does (an open one's repeats lazily); resolves once the writes are durable. */
async function fill(store: IncidentStore) {
  for (let n = 0; n < MANY; n++) {
    const i = nth(n);
    if (i.state === 'resolved') {
      store.put(i);
      continue;
    }
    store.put({ ...i, occurrences: 1 });
    store.put(i, { lazy: true });
  }
  await store.flush();
}

/** An incident as text with its keys in one order, however it was read back. */
const canonical = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));

/** Every incident as written, whole: compared as one list of texts (a deep comparison each would be most of the test). */
const expectEvery = (store: IncidentStore) => {
  expect(store.list()).toHaveLength(MANY);
  const held = Array.from({ length: MANY }, (_, n) => canonical(store.get(`INC-${n}`)));
  expect(held).toEqual(Array.from({ length: MANY }, (_, n) => canonical(nth(n))));
};

describe(`files store: a restart with ${MANY} incidents`, () => {
  it('keeps every incident, its state and its counts, after a stop and after kill -9', async () => {
    const dir = tempDir('fault-relay-many-');
    // Never folded into the files: as after kill -9 before the first compaction, everything is only in the log.
    const first = open(dir, MANY, 2 ** 40);
    await fill(first);
    const killed = open(dir);
    expectEvery(killed);
    await killed.close();
    // A clean stop wrote the files (sealed): read back without a schema check of each record.
    const restarted = open(dir);
    expectEvery(restarted);
    expect(restarted.list().filter((i) => i.state === 'running')).toHaveLength(MANY / 10);
    await restarted.close();
    await first.close();
  });

  it('rewrites the archive of finished incidents only when one of them changed, at a stop and at a start after kill -9', async () => {
    const dir = tempDir('fault-relay-many-archive-');
    const archive = join(dir, 'incidents-archive.json');
    const first = open(dir);
    for (let n = 1; n <= 200; n++) first.put(nth(n));
    await first.close();
    const written = statSync(archive).ino;
    // A repeat of an open incident, then kill -9: the start folds it in without writing the archive again.
    const killed = open(dir);
    killed.put({ ...nth(10), occurrences: 50 }, { lazy: true });
    await killed.flush();
    const restarted = open(dir);
    expect(restarted.get('INC-10')?.occurrences).toBe(50);
    expect(statSync(archive).ino).toBe(written);
    // An ending: the stop writes the archive, and the next start has it there.
    restarted.put({ ...nth(20), state: 'resolved', updated_at: '2026-11-02T00:00:00.000Z' });
    await restarted.close();
    expect(statSync(archive).ino).not.toBe(written);
    const again = open(dir);
    expect(again.get('INC-20')?.state).toBe('resolved');
    expect(again.get('INC-10')?.occurrences).toBe(50);
    expect(again.list()).toHaveLength(200);
    await again.close();
  });

  it('evicts only the oldest finished incidents past retention, whatever order they ended in', async () => {
    const dir = tempDir('fault-relay-many-evict-');
    const store = open(dir, 100);
    // Ended newest first: the order they are written in is not the order retention goes by.
    for (let n = 499; n >= 0; n--) store.put(nth(n));
    const kept = store.list().filter((i) => i.state === 'resolved').map((i) => Number(i.incident_id.slice(4)));
    expect(kept).toHaveLength(100);
    expect(Math.min(...kept)).toBeGreaterThan(499 - 120);
    expect(store.list().filter((i) => i.state === 'running')).toHaveLength(50);
    await store.close();
  });

  it('reads a file changed after it was written through the schema: a record that no longer fits is kept out, the rest kept', async () => {
    const dir = tempDir('fault-relay-many-edited-');
    const store = open(dir);
    for (let n = 1; n <= 50; n++) store.put(nth(n));
    await store.close();
    const archive = join(dir, 'incidents-archive.json');
    // Still JSON, still the same length: only its seal can tell it changed.
    writeFileSync(archive, readFileSync(archive, 'utf8').replace('"state":"resolved"', '"state":"resolvez"'));
    const again = open(dir);
    expect(again.get('INC-1')).toBeUndefined();
    expect(again.list()).toHaveLength(49);
    expect(again.get('INC-2')).toEqual(nth(2));
    await again.close();
  });

  it('refuses to start over a file cut short, saying which file and what to do', async () => {
    const dir = tempDir('fault-relay-many-cut-');
    const store = open(dir);
    for (let n = 1; n <= 50; n++) store.put(nth(n));
    await store.close();
    const archive = join(dir, 'incidents-archive.json');
    truncateSync(archive, 5_000);
    expect(() => open(dir)).toThrow(`${archive} is not valid JSON: the relay will not start over an unreadable store`);
  });
});
