import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { createFileBackend, DiskWriteError } from '../../src/core/incidents/file-backend';
import { spawnRelay, type RelayProcess } from '../helpers/relay-process';
import { tempDir } from '../helpers/temp-dir';

/**
 * The laptop relay's files store on a disk that fills: a real 2 MiB tmpfs under its data folder,
 * a real `npm run relay` process, kill -9. What it answered 202 is kept; what it could not keep it
 * answers 503 store_unavailable; it never crashes, and it mends itself once space returns.
 */
const ROOT = process.getuid?.() === 0;
if (!ROOT) console.warn('full-disk: skipped, mounting a tmpfs needs root');
const auth = { authorization: 'Bearer disk-secret' };

function smallDisk(): string {
  const dir = tempDir('fault-relay-disk-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', dir]);
  onTestFinished(() => void execFileSync('umount', ['-l', dir]));
  return dir;
}

/** Takes every byte left on the disk; removing the file gives them back. */
function fill(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'a');
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) if (writeSync(fd, chunk) <= 0) break;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  return path;
}

async function relayOn(dataDir: string, logDir: string) {
  const relay = await spawnRelay({
    AGENT_URL: 'http://127.0.0.1:1',
    AGENT_SERVER_PASSWORD: 'runtime-pw',
    WEBHOOK_SECRET: 'disk-secret',
    RELAY_DATA_DIR: dataDir,
    RELAY_LOG_DIR: logDir,
  });
  onTestFinished(() => relay.stop('SIGKILL'));
  return relay;
}

let n = 0;
/** A new fault each time (its own neighbor): each one is a new incident, so the index grows. */
async function alert(relay: RelayProcess) {
  n++;
  const body = JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: `10.9.${Math.floor(n / 250)}.${(n % 250) + 1}` }));
  const res = await request(`${relay.url}/fault-alert`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
  const json = (await res.body.json()) as { incident_id?: string; error?: { code: string } };
  return { status: res.statusCode, retryAfter: res.headers['retry-after'], json };
}

const storeCheck = async (relay: RelayProcess) => {
  const res = await request(`${relay.url}/health/deep`, { headers: auth });
  return ((await res.body.json()) as { checks: { store?: { ok: boolean; error?: string } } }).checks.store;
};

const sessions = async (relay: RelayProcess) => {
  const res = await request(`${relay.url}/sessions`, { headers: auth });
  return (await res.body.json()) as Record<string, unknown>;
};

describe.skipIf(!ROOT)('files store on a full disk', () => {
  it('an index rewrite the disk cuts short leaves the previous copy whole, and no temp file', () => {
    const dir = smallDisk();
    const backend = createFileBackend(dir, 'incidents');
    const first = Array.from({ length: 200 }, (_, i) => ({ incident_id: `INC-${i}`, note: 'x'.repeat(500) }));
    backend.set('incidents', first);
    // Room for part of a second, larger copy: the disk fills in the middle of writing it.
    const hog = Buffer.alloc(2 * 1024 * 1024 - 2 * Buffer.byteLength(JSON.stringify({ incidents: first })) + 64 * 1024);
    const fd = openSync(join(dir, 'hog'), 'w');
    try {
      writeSync(fd, hog);
    } catch {
      /* filled */
    } finally {
      closeSync(fd);
    }
    const bigger = [...first, ...first.map((i) => ({ ...i, incident_id: `${i.incident_id}-b` }))];
    expect(() => backend.set('incidents', bigger)).toThrow(DiskWriteError);
    expect(backend.get('incidents')).toHaveLength(200);
    expect((JSON.parse(readFileSync(join(dir, 'incidents.json'), 'utf8')) as { incidents: unknown[] }).incidents).toHaveLength(200);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    rmSync(join(dir, 'hog'));
    backend.set('incidents', bigger);
    expect(createFileBackend(dir, 'incidents').get('incidents')).toHaveLength(400);
  });

  it('answers 202 or 503 store_unavailable through a storm that fills the disk, never crashes, mends itself, and loses nothing it answered', { timeout: 240_000 }, async () => {
    const dataDir = smallDisk();
    const logDir = tempDir('fault-relay-disk-logs-');
    const relay = await relayOn(dataDir, logDir);
    const answered: string[] = [];
    let refused = 0;
    let filler: string | undefined;
    // The storm: new faults until the disk has been full for a while. The disk fills on its own
    // as the index grows (a rewrite needs room for two copies), and then, to be sure, completely.
    for (let i = 0; refused < 40; i++) {
      const a = await alert(relay);
      if (a.status === 202) answered.push(a.json.incident_id!);
      else {
        expect(a.status).toBe(503);
        expect(a.json.error?.code).toBe('store_unavailable');
        expect(Number(a.retryAfter)).toBeGreaterThan(0);
        refused++;
      }
      if (i === 60) filler = fill(dataDir);
      expect(relay.proc.exitCode).toBeNull();
    }
    expect(answered.length).toBeGreaterThanOrEqual(60);
    expect((await storeCheck(relay))?.ok).toBe(false);
    expect((await storeCheck(relay))?.error).toMatch(/ENOSPC/);

    // Space returns: the relay takes alerts again by itself, and says so.
    rmSync(filler!);
    await vi.waitFor(async () => expect((await storeCheck(relay))?.ok).toBe(true), { timeout: 30_000, interval: 100 });
    const back = await alert(relay);
    expect(back.status).toBe(202);
    answered.push(back.json.incident_id!);

    // kill -9 and a restart: every incident it ever answered 202 for is there, and every file reads.
    await relay.stop('SIGKILL');
    const again = await relayOn(dataDir, logDir);
    const held = await sessions(again);
    expect(answered.filter((id) => !(id in held))).toEqual([]);
    for (const name of ['incidents.json', 'incidents-archive.json']) {
      try {
        JSON.parse(readFileSync(join(dataDir, name), 'utf8'));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    expect(readdirSync(dataDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('starts on a full disk, degraded and saying why, and keeps what it held', { timeout: 120_000 }, async () => {
    const dataDir = smallDisk();
    const logDir = tempDir('fault-relay-disk-logs-');
    const relay = await relayOn(dataDir, logDir);
    const answered: string[] = [];
    for (let i = 0; i < 20; i++) {
      const a = await alert(relay);
      expect(a.status).toBe(202);
      answered.push(a.json.incident_id!);
    }
    // Killed with its repeats log unfolded, then the disk fills before it starts again.
    await relay.stop('SIGKILL');
    const filler = fill(dataDir);
    const again = await relayOn(dataDir, logDir);
    const check = await storeCheck(again);
    expect(check?.ok).toBe(false);
    expect(check?.error).toMatch(/ENOSPC/);
    expect(Object.keys(await sessions(again))).toEqual(expect.arrayContaining(answered));
    const refused = await alert(again);
    expect(refused.status).toBe(503);
    expect(refused.json.error?.code).toBe('store_unavailable');

    rmSync(filler);
    await vi.waitFor(async () => expect((await storeCheck(again))?.ok).toBe(true), { timeout: 30_000, interval: 100 });
    const back = await alert(again);
    expect(back.status).toBe(202);
    answered.push(back.json.incident_id!);
    await again.stop('SIGKILL');
    const third = await relayOn(dataDir, logDir);
    expect(Object.keys(await sessions(third))).toEqual(expect.arrayContaining(answered));
  });
});
