import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { spawnRelay } from '../helpers/relay-process';
import { tempDir } from '../helpers/temp-dir';

/** Debian's libfaketime moves the relay's wall clock (not its monotonic one) while it runs. */
const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1';
if (!existsSync(LIBFAKETIME)) console.warn('clock-step: skipped, faketime is not installed');

describe.skipIf(!existsSync(LIBFAKETIME))('a wall-clock step under a running relay', () => {
  it('is reported on /health, with its size and direction', { timeout: 60_000 }, async () => {
    const dir = tempDir('fault-relay-clock-');
    const offset = join(dir, 'faketime');
    writeFileSync(offset, '+0\n');
    const relay = await spawnRelay({
      AGENT_URL: 'http://127.0.0.1:1',
      AGENT_SERVER_PASSWORD: 'runtime-pw',
      RELAY_DATA_DIR: join(dir, 'data'),
      RELAY_LOG_DIR: join(dir, 'logs'),
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME_TIMESTAMP_FILE: offset,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    });
    onTestFinished(() => relay.stop('SIGKILL'));
    const warnings = async () => ((await (await request(`${relay.url}/health`)).body.json()) as { warnings: string[] }).warnings;
    expect((await warnings()).join('\n')).not.toMatch(/wall clock stepped/);

    writeFileSync(offset, '+2h\n');
    await vi.waitFor(async () => expect((await warnings()).join('\n')).toMatch(/wall clock stepped forward by 720\d s/), { timeout: 30_000, interval: 200 });
  });
});
