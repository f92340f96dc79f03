import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileBackends } from '../../src/incidents/file-backend';
import { createPersistentStore } from '../../src/incidents/persistent-store';
import { silent } from '../helpers/relay';
import { tempDir } from '../helpers/temp-dir';
import { describeStoreContract, incident } from './store-contract';

describeStoreContract('files (the laptop relay)', async () => {
  const dir = tempDir('fault-relay-store-');
  return {
    open: async (opts) => {
      const b = createFileBackends(dir);
      return createPersistentStore({ backend: b.open, archive: b.archive, timelineDir: join(dir, 'timelines'), retention: opts?.retention ?? 1000, logger: silent });
    },
  };
});

describe('files store: the repeats log', () => {
  const open = (dir: string) => {
    const b = createFileBackends(dir);
    // The index's rewrite never comes in this test: only the log can keep the repeats.
    return createPersistentStore({ backend: b.open, archive: b.archive, timelineDir: join(dir, 'timelines'), retention: 100, logger: silent, lazyFlushMs: 3_600_000 });
  };

  it('keeps repeats written lazily when the relay stops without closing the store (kill -9), and empties the log once the index has them', async () => {
    const dir = tempDir('fault-relay-repeats-');
    const crashed = open(dir);
    crashed.put(incident(1));
    for (let n = 2; n <= 5; n++) crashed.put({ ...incident(1), occurrences: n, last_seen: `2026-11-21T10:0${n}:00.000Z` }, { lazy: true });
    // What the intake awaits before a repeat's 202: the turn's repeats written to the log in one write.
    await crashed.flush();
    expect(existsSync(join(dir, 'timelines', 'repeats.log'))).toBe(true);
    // Not closed: as after kill -9, the index on disk still says 1.
    const restarted = open(dir);
    expect(restarted.get('INC-1')).toMatchObject({ occurrences: 5, last_seen: '2026-11-21T10:05:00.000Z' });
    expect(existsSync(join(dir, 'timelines', 'repeats.log'))).toBe(false);
    await restarted.close();
    expect(open(dir).get('INC-1')?.occurrences).toBe(5);
  });

  it('keeps a new incident and its delivery (whole records, not only counts) through kill -9, in the order written, with repeats between', async () => {
    const dir = tempDir('fault-relay-records-');
    const crashed = open(dir);
    crashed.put(incident(1));
    crashed.put({ ...incident(1), occurrences: 2, last_seen: '2026-11-21T10:02:00.000Z' }, { lazy: true });
    crashed.put({ ...incident(1), occurrences: 2, last_seen: '2026-11-21T10:02:00.000Z', state: 'running', session_id: 'ses_1', updated_at: '2026-11-21T10:03:00.000Z' });
    crashed.put(incident(2));
    // Not closed, and the index never rewritten (lazyFlushMs): as after kill -9 right after the 202.
    const restarted = open(dir);
    expect(restarted.get('INC-1')).toMatchObject({ state: 'running', session_id: 'ses_1', occurrences: 2, last_seen: '2026-11-21T10:02:00.000Z' });
    expect(restarted.get('INC-2')).toMatchObject({ state: 'queued', occurrences: 1 });
    expect(existsSync(join(dir, 'timelines', 'repeats.log'))).toBe(false);
    await restarted.close();
    expect(open(dir).list().map((i) => [i.incident_id, i.state])).toEqual([['INC-2', 'queued'], ['INC-1', 'running']]);
  });
});
