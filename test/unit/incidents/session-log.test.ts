import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntimeEventMapper } from '../../../src/adapters/agent/runtime-events';
import { createSessionLogWriter, type SessionLogWriter } from '../../../src/core/incidents/session-log';
import { silent } from '../../helpers/relay';
import { inMemoryIncidents, manualClock } from './in-memory-incidents';
import { entries } from '../../../src/core/events/timeline-entries';
import { laptopCluster } from '../../../src/core/cluster/laptop';
const { owns } = laptopCluster({ relayTag: 'test' });

const dirs: string[] = [];
const writers: SessionLogWriter[] = [];
afterEach(async () => {
  await Promise.all(writers.splice(0).map((w) => w.stop()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const clock = manualClock('2026-11-21T10:00:00.000Z');
  const relay = inMemoryIncidents(clock);
  const logDir = mkdtempSync(join(tmpdir(), 'relay-logs-'));
  dirs.push(logDir);
  const writer = createSessionLogWriter({ incidents: relay.incidents, bus: relay.bus, logDir, logger: silent, owns });
  writers.push(writer);
  const files = () => (existsSync(join(logDir, 'troubleshooting')) ? readdirSync(join(logDir, 'troubleshooting')) : []);
  return { ...relay, clock, logDir, writer, files };
}

const commands = ['interface Gi0/1', 'no shutdown'];

describe('session log', () => {
  it('writes the run as Markdown when the incident ends: header, alert variables, approval, outcome, timeline', async () => {
    const t = setup();
    const incident = t.running('ses_root1', { alert_vars: { neighbor_ip: '10.0.0.2', vrf_name: 'default', api_token: 'tok-123-secret' } });
    const id = incident.incident_id;
    t.clock.advance(60_000);
    t.incidents.transition(id, 'request_approval', () => ({
      approval_request: {
        summary: 'Bring the BGP neighbor back up',
        device: 'R1',
        commands,
        rollback: ['interface Gi0/1', 'shutdown'],
        requested_at: '2026-11-21T10:01:00.000Z',
        expires_at: '2026-11-21T10:31:00.000Z',
        status: 'pending',
        lines_sha256: '',
        channels: ['webex'],
        request_id: 'REQ-TEST-0001',
        terminal_shown_at: null,
      },
    }));
    t.clock.advance(60_000);
    t.incidents.transition(id, 'approve', () => ({
      approval: {
        decision: 'APPROVED', effective: 'APPROVED', by: 'alice@example.com', channel: 'webex', at: '2026-11-21T10:02:00.000Z',
        reason: 'maintenance window', commands, forwarded_at: '2026-11-21T10:02:01.000Z', acknowledged_at: null, request_id: 'REQ-TEST-0001', apply_by: null,
      },
    }));
    t.incidents.transition(id, 'resume');
    t.incidents.record(id, entries.toolCompleted, 'network-troubleshooter: device_exec completed', { session_id: 'ses-1', tool: 'device_exec', call_id: 'call_1', output: '' });
    await t.writer.flushed();
    expect(t.files()).toEqual([]);

    t.clock.advance(60_000);
    t.incidents.transition(id, 'resolve', () => ({ outcome: { kind: 'resolved', summary: 'Neighbor 10.0.0.2 Established again', at: '2026-11-21T10:03:00.000Z' } }));
    await t.writer.flushed();

    const path = join(t.logDir, 'troubleshooting', '20261121T100000Z-AD000002-R1.md');
    expect(t.writer.pathFor(incident)).toBe(path);
    expect(t.files()).toEqual(['20261121T100000Z-AD000002-R1.md']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const md = readFileSync(path, 'utf8');
    expect(md).toContain(`# ${id}: AD000002 on R1`);
    for (const row of [
      `| Incident | ${id} |`, '| Mode | strict |', '| State | resolved |', '| Agent session | ses_root1 |',
      '| Created | 2026-11-21T10:00:00.000Z |', '| Occurrences | 1 (last seen 2026-11-21T10:00:00.000Z) |', '| Warnings | none |',
      '| neighbor_ip | 10.0.0.2 |', '| api_token | [redacted] |',
      '| Decision | APPROVED |', '| By | alice@example.com |',
      '| Channel | webex |', '| At | 2026-11-21T10:02:00.000Z |', '| Reason | maintenance window |',
    ]) expect(md).toContain(row);
    expect(md).not.toContain('tok-123-secret');
    expect(md).toContain('Commands approved:\n\n```\ninterface Gi0/1\nno shutdown\n```');
    expect(md).toContain("**The agent's summary (its own words, not checked by the relay):**\n\n> Bring the BGP neighbor back up");
    expect(md).toContain('**resolved** at 2026-11-21T10:03:00.000Z.');
    expect(md).toContain('> Neighbor 10.0.0.2 Established again');
    expect(md).toContain('| 2026-11-21T10:02:00.000Z | state.changed | approved → running |');
    expect(md).toContain('| tool.completed | network-troubleshooter: device_exec completed |');
  });

  it('exists when the agent failed: a session error ends the incident and the log says why', async () => {
    const t = setup();
    const incident = t.running('ses_root1');
    const mapper = createRuntimeEventMapper({ incidents: t.incidents, agent: { getSession: async () => ({ id: 'x' }) }, logger: silent, clock: t.clock, owns });
    mapper.handle({ type: 'session.error', properties: { sessionID: 'ses_root1', error: { name: 'APIError', data: { message: 'Cannot connect to API' } } } });
    await t.writer.flushed();
    const md = readFileSync(t.writer.pathFor(incident), 'utf8');
    expect(md).toContain('| State | failed |');
    expect(md).toContain('**failed** at 2026-11-21T10:00:00.000Z.');
    expect(md).toContain('**Why, as the relay recorded it:**\n\n> APIError: Cannot connect to API');
    expect(md).toContain('No approval was requested.');
  });

  it('rewrites the log when more happens after the end, leaving no temporary files', async () => {
    const t = setup();
    const incident = t.running('ses_root1');
    t.incidents.transition(incident.incident_id, 'escalate', () => ({ outcome: { kind: 'escalated', summary: 'approval expired', at: 'x' } }));
    await t.writer.flushed();
    expect(readFileSync(t.writer.pathFor(incident), 'utf8')).not.toContain('final words');
    t.incidents.record(incident.incident_id, entries.agentText, 'final words | with a pipe\nand a second line', { session_id: 'ses_root1' });
    await t.writer.flushed();
    expect(readFileSync(t.writer.pathFor(incident), 'utf8')).toContain('| agent.text | final words \\| with a pipe<br>and a second line |');
    expect(t.files()).toEqual([t.writer.pathFor(incident).split('/').at(-1)]);
  });

  it('keeps incidents of the same second and device apart, and file names safe', async () => {
    const t = setup();
    const a = t.running('ses_a', { device: 'core/rtr 1' });
    t.incidents.transition(a.incident_id, 'fail', () => ({ outcome: { kind: 'failed', summary: 'x', at: 'x' } }));
    const b = t.running('ses_b', { device: 'core/rtr 1' });
    t.incidents.transition(b.incident_id, 'fail', () => ({ outcome: { kind: 'failed', summary: 'y', at: 'x' } }));
    await t.writer.flushed();
    expect(b.incident_id).toMatch(/-2$/);
    expect(t.files().sort()).toEqual(['20261121T100000Z-AD000002-core_rtr_1-2.md', '20261121T100000Z-AD000002-core_rtr_1.md']);
  });

  it('reports a log it cannot write without disturbing the incident', async () => {
    const t = setup();
    writeFileSync(join(t.logDir, 'troubleshooting'), 'a file where the folder should be');
    const incident = t.running('ses_root1');
    const after = t.incidents.transition(incident.incident_id, 'resolve', () => ({ outcome: { kind: 'resolved', summary: 'ok', at: 'x' } }));
    await t.writer.flushed();
    expect(after.state).toBe('resolved');
    expect(readdirSync(t.logDir)).toEqual(['troubleshooting']);
  });

  it('stops writing once stopped', async () => {
    const t = setup();
    await t.writer.stop();
    const incident = t.running('ses_root1');
    t.incidents.transition(incident.incident_id, 'resolve', () => ({ outcome: { kind: 'resolved', summary: 'ok', at: 'x' } }));
    await t.writer.flushed();
    expect(readdirSync(t.logDir)).toEqual([]);
  });

  it('after a restart, writes the log of a finished incident that has none, and leaves existing logs alone', async () => {
    const t = setup();
    const done = t.running('ses_done');
    const open = t.running('ses_open');
    await t.writer.stop(); // the crash: the incident ends with no writer listening
    t.incidents.transition(done.incident_id, 'resolve', () => ({ outcome: { kind: 'resolved', summary: 'ok', at: '2026-11-21T10:05:00.000Z' } }));
    expect(t.files()).toEqual([]);
    const restarted = createSessionLogWriter({ incidents: t.incidents, bus: t.bus, logDir: t.logDir, logger: silent, owns });
    writers.push(restarted);
    restarted.backfill(t.incidents.list());
    await restarted.flushed();
    expect(t.files()).toEqual([restarted.pathFor(done).split('/').pop()]);
    expect(t.incidents.get(open.incident_id)?.state).toBe('running');
  });
});
