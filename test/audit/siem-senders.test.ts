import { afterEach, describe, expect, it } from 'vitest';
import { relayEvent } from '../../src/adapters/audit/derive';
import { auditEventSchema, type AuditEvent } from '../../src/adapters/audit/schema';
import { createSplunkHecSender } from '../../src/adapters/audit/splunk-hec';
import { createSyslogSender, parseSyslogUrl, type SyslogTarget } from '../../src/adapters/audit/syslog';
import { systemClock } from '../../src/core/clock';
import { readFileSync } from 'node:fs';
import { startFakeHec, type FakeHec } from '../fakes/splunk-hec';
import { makeTestCa, noRsyslog, noRsyslogTls, startRsyslog } from '../helpers/rsyslog-process';
import { waitUntil } from '../helpers/opencode';
import { tempDir } from '../helpers/temp-dir';

const TOKEN = 'hec-token-0f3a9c2e-7d41-4b8e-9a61-5c2b7e8d4f10';
const LINES_SHA = 'a'.repeat(64);
const EVIDENCE_SHA = 'b'.repeat(64);

const decision = (n: number): AuditEvent =>
  relayEvent('relay-1', new Date(Date.UTC(2026, 10, 29, 2, 0, n)), {
    type: 'decision',
    incident_id: `INC-${n}`,
    evidence_sha256: EVIDENCE_SHA,
    request_id: `REQ-${n}`,
    lines_sha256: LINES_SHA,
    actor: 'Ana "the approver" Ruiz',
    channel: 'webex',
    outcome: 'APPROVED',
    device: 'R1',
  });

let hec: FakeHec | undefined;
afterEach(async () => {
  await hec?.close();
  hec = undefined;
});

describe('Splunk HEC sender', () => {
  it('sends a batch as one request, each event with its metadata, under Authorization: Splunk <token>', async () => {
    hec = await startFakeHec({ token: TOKEN });
    const sender = createSplunkHecSender({ url: `${hec.url}/services/collector/event`, token: TOKEN, ack: false, host: 'relay-1', index: 'netops', clock: systemClock });
    const events = [decision(1), decision(2), decision(3)];
    expect(await sender.send(events)).toEqual({ ok: true });
    expect(hec.requests).toHaveLength(1);
    const [request] = hec.requests;
    expect(request?.events.map((e) => e.event)).toEqual(events);
    expect(request?.events[0]).toMatchObject({ time: Date.parse(events[0]!.time) / 1000, host: 'relay-1', source: 'fault-relay', sourcetype: 'fault_relay:audit', index: 'netops' });
    expect(request?.events.every((e) => auditEventSchema.safeParse(e.event).success)).toBe(true);
  });

  it('a 400 is permanent with its reason; 429 carries Retry-After; 503 and a refused token are tried again, never naming the token', async () => {
    hec = await startFakeHec({ token: TOKEN });
    const sender = createSplunkHecSender({ url: hec.url, token: TOKEN, ack: false, host: 'relay-1', clock: systemClock });
    hec.fail({ status: 400, code: 6, text: 'Invalid data format', invalidEvent: 0 });
    expect(await sender.send([decision(1)])).toEqual({ ok: false, permanent: true, reason: 'HTTP 400 code 6: Invalid data format' });
    hec.fail({ status: 429, code: 9, text: 'Server is busy', retryAfter: '7' });
    expect(await sender.send([decision(1)])).toEqual({ ok: false, permanent: false, reason: 'HTTP 429 code 9: Server is busy', retryAfterMs: 7000 });
    hec.fail({ status: 503, code: 9, text: 'Server is busy' });
    expect(await sender.send([decision(1)])).toMatchObject({ ok: false, permanent: false, reason: 'HTTP 503 code 9: Server is busy' });
    const wrong = createSplunkHecSender({ url: hec.url, token: 'not-the-token', ack: false, host: 'relay-1', clock: systemClock });
    const refused = await wrong.send([decision(1)]);
    expect(refused).toEqual({ ok: false, permanent: false, reason: 'HTTP 403 code 4: Invalid token' });
    expect(JSON.stringify(refused)).not.toContain('not-the-token');
    expect(hec.indexed.size).toBe(0);
  });

  it('with acknowledgement on, every request names one channel and a batch counts only once Splunk says it is indexed', async () => {
    hec = await startFakeHec({ token: TOKEN, ack: true });
    const sender = createSplunkHecSender({ url: hec.url, token: TOKEN, ack: true, host: 'relay-1', clock: systemClock, ackPollMs: 20, ackTimeoutMs: 60_000 });
    const events = [decision(1), decision(2), decision(3)];
    expect(await sender.send(events.slice(0, 2))).toEqual({ ok: true });
    expect(await sender.send(events.slice(2))).toEqual({ ok: true });
    const channels = new Set(hec.requests.map((r) => r.channel));
    expect(channels.size).toBe(1);
    expect([...channels][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(hec.ackQueries).toEqual([[0], [1]]);
    expect([...hec.indexed.keys()].sort()).toEqual(events.map((e) => e.id).sort());

    // Received but never indexed within the wait: not delivered, so the batch goes again.
    hec.holdAcks(true);
    const short = createSplunkHecSender({ url: hec.url, token: TOKEN, ack: true, host: 'relay-1', clock: systemClock, ackPollMs: 20, ackTimeoutMs: 100 });
    const held = decision(4);
    expect(await short.send([held])).toMatchObject({ ok: false, permanent: false, reason: 'not acknowledged as indexed within 0 s' });
    expect(hec.indexed.has(held.id)).toBe(false);
  });
});

/** rsyslog's RFC 5424 rendering of one received message: `<PRI>1 TIMESTAMP HOST APP PROCID MSGID SD MSG`. */
const RFC5424 = /^<(\d+)>1 (\S+) (\S+) (\S+) (\S+) (\S+) (\[.*?[^\\]\]) (.*)$/;

async function roundTrip(target: SyslogTarget, ca?: string) {
  const sender = createSyslogSender({ target, host: 'relay-1', ...(ca ? { ca } : {}) });
  const events = [decision(1), relayEvent('relay-1', new Date('2026-11-29T02:00:09.000Z'), { type: 'auth.failed', outcome: '401', detail: { route: '/fault-alert', method: 'POST' } })];
  try {
    expect(await sender.send(events)).toEqual({ ok: true });
    return events;
  } finally {
    await sender.close();
  }
}

function expectReceived(lines: string[], events: AuditEvent[]) {
  expect(lines).toHaveLength(events.length);
  const [first, second] = lines.map((l) => RFC5424.exec(l));
  expect(first).not.toBeNull();
  // log audit (13) × 8 + notice (5); a failed authentication is a warning (4).
  expect(first?.[1]).toBe('109');
  expect(second?.[1]).toBe('108');
  expect(Date.parse(first![2]!)).toBe(Date.parse(events[0]!.time));
  expect(first?.slice(3, 7)).toEqual(['relay-1', 'fault-relay', String(process.pid), 'decision']);
  expect(first?.[7]).toContain(`[fault-relay@32473 id="${events[0]!.id}" type="decision" incident="INC-1" evidence_sha256="${EVIDENCE_SHA}" request_id="REQ-1" lines_sha256="${LINES_SHA}" actor="Ana \\"the approver\\" Ruiz" channel="webex" outcome="APPROVED"]`);
  expect(JSON.parse(first![8]!)).toEqual(events[0]);
  expect(second?.[6]).toBe('auth.failed');
}

describe.skipIf(noRsyslog)('RFC 5424 syslog to a real rsyslog', () => {
  it('over TCP with octet counting: every field where RFC 5424 puts it, the event whole in MSG', async () => {
    const rsyslog = await startRsyslog();
    try {
      const target = parseSyslogUrl(`tcp://127.0.0.1:${rsyslog.port}`);
      if ('error' in target) throw new Error(target.error);
      const events = await roundTrip(target);
      await waitUntil(() => rsyslog.lines().length >= events.length, 'rsyslog wrote both messages');
      expectReceived(rsyslog.lines(), events);
    } finally {
      await rsyslog.stop();
    }
  });

  it.skipIf(noRsyslogTls)('over TLS, the receiver checked against the CA in SYSLOG_CA_FILE', async () => {
    const ca = makeTestCa(tempDir('syslog-ca-'));
    const rsyslog = await startRsyslog({ tls: ca });
    try {
      const target = parseSyslogUrl(`tls://127.0.0.1:${rsyslog.port}`);
      if ('error' in target) throw new Error(target.error);
      // Without the CA the receiver's certificate is not trusted: nothing is sent, and it is said why.
      const untrusted = await createSyslogSender({ target, host: 'relay-1' }).send([decision(1)]);
      expect(untrusted).toMatchObject({ ok: false, permanent: false });
      expect(untrusted.ok ? '' : untrusted.reason).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER/);
      const events = await roundTrip(target, readFileSync(ca.ca, 'utf8'));
      await waitUntil(() => rsyslog.lines().length >= events.length, 'rsyslog wrote both messages');
      expectReceived(rsyslog.lines(), events);
    } finally {
      await rsyslog.stop();
    }
  });

  it('SYSLOG_URL is tcp://, tls://, relp:// or relp+tls:// with a host and a port', () => {
    expect(parseSyslogUrl('udp://h:514')).toEqual({ error: 'unsupported scheme udp: expected tcp://, tls://, relp:// or relp+tls://' });
    expect(parseSyslogUrl('relp://siem.example.net:2514')).toEqual({ protocol: 'relp', host: 'siem.example.net', port: 2514 });
    expect(parseSyslogUrl('tcp://h')).toHaveProperty('error');
    expect(parseSyslogUrl('tls://siem.example.net:6514')).toEqual({ protocol: 'tls', host: 'siem.example.net', port: 6514 });
  });
});
