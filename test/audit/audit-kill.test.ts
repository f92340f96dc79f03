import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { findFreePort } from '../../src/adapters/agent/free-port';
import { auditEventSchema } from '../../src/adapters/audit/schema';
import { startFakeHec } from '../fakes/splunk-hec';
import { spawnRelay } from '../helpers/relay-process';
import { noRsyslog, startRsyslog } from '../helpers/rsyslog-process';
import { tempDir } from '../helpers/temp-dir';

const HEC_TOKEN = 'hec-token-1c7e4a2b-9f3d-4b8e-a6c1-2d5f8e0b3a97';
const SECRET = 'splunk-webhook-secret-77';

const backlog = async (url: string, sink: string) => {
  const res = await request(`${url}/metrics`, { headers: { authorization: `Bearer ${SECRET}` } });
  const m = new RegExp(`^fault_relay_audit_backlog\\{sink="${sink}"\\} (\\d+)$`, 'm').exec(await res.body.text());
  return Number(m?.[1] ?? -1);
};

describe.skipIf(noRsyslog)('the audit outbox across a kill -9', () => {
  it('events stored while both SIEMs were down reach both after the relay is killed and started again', { timeout: 120_000 }, async () => {
    const dir = tempDir('fault-relay-audit-kill-');
    const [hecPort, syslogPort] = [await findFreePort(), await findFreePort()];
    const env = {
      AGENT_URL: 'http://127.0.0.1:1',
      AGENT_SERVER_PASSWORD: 'runtime-pw',
      WEBHOOK_SECRET: SECRET,
      RELAY_DATA_DIR: join(dir, 'data'),
      RELAY_LOG_DIR: join(dir, 'logs'),
      SPLUNK_HEC_URL: `http://127.0.0.1:${hecPort}`,
      SPLUNK_HEC_TOKEN: HEC_TOKEN,
      SYSLOG_URL: `tcp://127.0.0.1:${syslogPort}`,
    };
    const first = await spawnRelay(env);
    onTestFinished(() => first.stop('SIGKILL'));
    // Three failed authentications: three audit events, with nowhere to go yet.
    for (const guess of ['wrong-1', 'wrong-2', 'wrong-3']) {
      const res = await request(`${first.url}/fault-alert`, { method: 'POST', headers: { authorization: `Bearer ${guess}`, 'content-type': 'application/json' }, body: '{}' });
      expect(res.statusCode).toBe(401);
      await res.body.dump();
    }
    await vi.waitFor(async () => {
      expect(await backlog(first.url, 'splunk_hec')).toBeGreaterThan(0);
      expect(await backlog(first.url, 'syslog')).toBeGreaterThan(0);
    }, { timeout: 30_000, interval: 100 });
    await first.stop('SIGKILL');

    const hec = await startFakeHec({ token: HEC_TOKEN, port: hecPort });
    onTestFinished(() => hec.close());
    const rsyslog = await startRsyslog({ port: syslogPort });
    onTestFinished(() => rsyslog.stop());
    const second = await spawnRelay(env);
    onTestFinished(() => second.stop('SIGKILL'));

    await vi.waitFor(() => expect(hec.indexed.size).toBe(3), { timeout: 60_000, interval: 100 });
    const events = [...hec.indexed.values()].map((e) => auditEventSchema.parse(e.event));
    expect(events.map((e) => e.type)).toEqual(['auth.failed', 'auth.failed', 'auth.failed']);
    await vi.waitFor(() => expect(new Set(rsyslog.lines().map((l) => /\bid="([0-9a-f]{32})"/.exec(l)?.[1])).size).toBe(3), { timeout: 60_000, interval: 100 });
    const syslogIds = new Set(rsyslog.lines().map((l) => /\bid="([0-9a-f]{32})"/.exec(l)?.[1]));
    expect(syslogIds).toEqual(new Set(events.map((e) => e.id)));
    await vi.waitFor(async () => expect(await backlog(second.url, 'splunk_hec')).toBe(0), { timeout: 30_000, interval: 100 });
    for (const guess of ['wrong-1', 'wrong-2', 'wrong-3', SECRET, HEC_TOKEN]) expect(JSON.stringify([...hec.indexed.values()]) + rsyslog.lines().join('\n')).not.toContain(guess);
  });
});
