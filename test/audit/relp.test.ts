import { afterEach, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/adapters/agent/free-port';
import { auditViewOf } from '../../src/adapters/audit/audited-entries';
import { relayEvent } from '../../src/adapters/audit/derive';
import { createRelpSender, relpFrame, relpReader, type RelpFrame } from '../../src/adapters/audit/relp';
import type { AuditEvent } from '../../src/adapters/audit/schema';
import { parseSyslogUrl, type SyslogTarget } from '../../src/adapters/audit/syslog';
import type { Relay } from '../../src/relay/create-relay';
import { untilIncident } from '../helpers/incident-waits';
import { ad000002, relayForTest } from '../helpers/relay';
import { noRsyslogRelp, startRsyslog, type LocalRsyslog } from '../helpers/rsyslog-process';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';

/**
 * The audit stream over RELP to a real rsyslog with imrelp: an event counts as delivered only when
 * rsyslog has answered `rsp 200` for it, so rsyslog killed (kill -9) and started again loses nothing.
 */

const event = (n: number): AuditEvent =>
  relayEvent('relay-1', new Date(Date.UTC(2026, 10, 29, 3, 0, n)), { type: 'decision', incident_id: `INC-${n}`, request_id: `REQ-${n}`, actor: 'Ana Ruiz', channel: 'webex', outcome: 'APPROVED', device: 'R1' });
const idsIn = (rsyslog: LocalRsyslog) => new Set(rsyslog.lines().map((l) => /\bid="([0-9a-f]{32})"/.exec(l)?.[1]));
const target = (url: string): SyslogTarget => {
  const t = parseSyslogUrl(url);
  if ('error' in t) throw new Error(t.error);
  return t;
};

const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

describe('RELP frames', () => {
  it('are TXNR COMMAND DATALEN [DATA] LF, read back however the bytes arrive', () => {
    expect(relpFrame(1, 'open', 'relp_version=0').toString()).toBe('1 open 14 relp_version=0\n');
    expect(relpFrame(7, 'close', '').toString()).toBe('7 close 0\n');
    const frames: RelpFrame[] = [];
    const errors: Error[] = [];
    const read = relpReader((f) => frames.push(f), (e) => errors.push(e));
    const stream = Buffer.from('2 rsp 6 200 OK\n3 rsp 11 500 no room\n0 serverclose 0\n1 rsp 14 200 OK\nnext=é\n');
    for (const byte of stream) read(Buffer.from([byte]));
    expect(errors).toEqual([]);
    expect(frames).toEqual([
      { txnr: 2, command: 'rsp', data: '200 OK' },
      { txnr: 3, command: 'rsp', data: '500 no room' },
      { txnr: 0, command: 'serverclose', data: '' },
      { txnr: 1, command: 'rsp', data: '200 OK\nnext=é' },
    ]);
    relpReader(() => undefined, (e) => errors.push(e))(Buffer.from('<13>1 not relp at all\n'));
    expect(errors).toHaveLength(1);
  });
});

describe.skipIf(noRsyslogRelp)('RELP to a real rsyslog (imrelp)', () => {
  it('a batch is delivered when rsyslog has answered each event; killed, it is not, and started again it has it', async () => {
    const port = await findFreePort();
    const first = await startRsyslog({ relp: true, port });
    stops.push(() => first.stop());
    const sender = createRelpSender({ target: target(`relp://127.0.0.1:${port}`), host: 'relay-1' });
    const [e1, e2, e3] = [event(1), event(2), event(3)] as const;
    stops.push(() => sender.close());

    expect(await sender.send([e1, e2])).toEqual({ ok: true });
    // Answered 200 only once handed on: the lines are in rsyslog's file already.
    expect(idsIn(first)).toEqual(new Set([e1.id, e2.id]));

    await first.kill();
    const refused = await sender.send([e3]);
    expect(refused).toMatchObject({ ok: false, permanent: false });
    expect(refused.ok ? '' : refused.reason).toMatch(/^relp relp:\/\/127\.0\.0\.1:\d+: /);

    const second = await startRsyslog({ relp: true, port, dir: first.dir });
    stops.push(() => second.stop());
    expect(await sender.send([e3])).toEqual({ ok: true });
    expect(idsIn(second)).toEqual(new Set([e1.id, e2.id, e3.id]));
    expect(second.lines().join('\n')).toContain('[fault-relay@32473 id=');
  });

  it('through the relay\'s outbox: events wait while rsyslog is dead (kill -9) and all arrive once it is back', async () => {
    const port = await findFreePort();
    let rsyslog = await startRsyslog({ relp: true, port });
    stops.push(() => rsyslog.stop());
    const relay: Relay = await relayForTest({ agent: createStubRuntime(), env: { SYSLOG_URL: `relp://127.0.0.1:${port}`, RELAY_DATA_DIR: tempDir('fault-relay-relp-') }, extraChannels: () => ['test'] });
    stops.push(() => relay.close());
    // A decision: one audit event (who, channel, request id, lines hash) for the stream.
    const decided = async (device: string) => {
      const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002({ system: device })) });
      const id = res.json().incident_id as string;
      await relay.approvals.request({ incident_id: id, summary: 's', device, commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });
      expect((await relay.decide({ incident_id: id, decision: 'APPROVED', who: { id: 'alice', authenticated_by: 'relay' }, channel: 'test' })).status).toBe('accepted');
      return id;
    };
    const before = await decided('R1');
    await untilIncident(relay, before, (_i, timeline) => auditViewOf(timeline).state === 'sent');

    await rsyslog.kill();
    const during = await decided('R2');
    await untilIncident(relay, during, (_i, timeline) => timeline.some((e) => e.type === 'audit.waiting'));
    rsyslog = await startRsyslog({ relp: true, port, dir: rsyslog.dir });
    await untilIncident(relay, during, (_i, timeline) => auditViewOf(timeline).state === 'sent');

    // Every event the relay counts as delivered is in rsyslog's file, the decision made while it was dead among them.
    const deliveredIds = (id: string) => relay.incidents.timeline(id).filter((e) => e.type === 'audit.delivered').flatMap((e) => (e as { ids?: string[] }).ids ?? []);
    const received = idsIn(rsyslog);
    for (const id of [before, during]) {
      expect(deliveredIds(id).length, id).toBeGreaterThan(0);
      for (const eventId of deliveredIds(id)) expect(received.has(eventId), eventId).toBe(true);
      expect(rsyslog.lines().some((l) => l.includes(`incident="${id}"`) && / type="decision" /.test(l))).toBe(true);
      expect(relay.incidents.timeline(id).some((e) => e.type === 'audit.failed')).toBe(false);
    }
  });
});
