import { describe, expect, it } from 'vitest';
import { trayStatus } from '../../../electron/tray-state';

describe('tray state', () => {
  it('is idle with nothing to do, and says it is starting before the first health check', () => {
    expect(trayStatus([], { ok: true })).toMatchObject({ state: 'idle', line: 'Idle: no active incidents' });
    expect(trayStatus([{ state: 'resolved' }], { ok: null })).toMatchObject({ state: 'idle', line: 'Starting…' });
  });

  it('counts queued and running incidents as runs in progress', () => {
    expect(trayStatus([{ state: 'running' }, { state: 'queued' }, { state: 'failed' }], { ok: true })).toMatchObject({ state: 'running', line: '2 runs in progress' });
  });

  it('shows a pending approval above everything, even a degraded runtime', () => {
    const status = trayStatus([{ state: 'awaiting_approval' }, { state: 'running' }], { ok: false, problem: 'agent runtime: connect ECONNREFUSED' });
    expect(status).toMatchObject({ state: 'awaiting_approval', line: '1 approval waiting for you · 1 run in progress' });
  });

  it('is degraded when a health check fails, naming what failed', () => {
    expect(trayStatus([{ state: 'running' }], { ok: false, problem: 'agent runtime: connect ECONNREFUSED' })).toMatchObject({
      state: 'degraded',
      line: 'Degraded: agent runtime: connect ECONNREFUSED',
    });
  });

  it('keeps standing configuration warnings under the line, whatever the state', () => {
    const warnings = ['APPROVAL_WHEN_UNATTENDED=approve: with no approval channel, configuration changes are applied without a human. For demos only.'];
    expect(trayStatus([{ state: 'awaiting_approval' }], { ok: true, warnings })).toMatchObject({ state: 'awaiting_approval', warnings });
    expect(trayStatus([], { ok: true })).toMatchObject({ state: 'idle', warnings: [] });
  });

  it('shows where each long run is: its RAW step, elapsed time, and the time left on a pending approval', () => {
    const now = new Date('2026-11-24T10:05:00Z');
    const status = trayStatus(
      [
        { state: 'running', device_hostname: 'R2', created_at: '2026-11-24T10:04:00Z', progress: { step: 'collect_bgp_config', index: 3, total: 8, at: '' }, approval_request: null },
        { state: 'awaiting_approval', device_hostname: 'R1', created_at: '2026-11-24T10:02:50Z', progress: { step: 'repair_no_shutdown', index: 5, total: 8, at: '' }, approval_request: { expires_at: '2026-11-24T10:33:00Z' } as never },
        { state: 'resolved', device_hostname: 'R9', created_at: '2026-11-24T09:00:00Z' },
      ],
      { ok: true },
      now,
    );
    expect(status.progress).toEqual(['R1: approval 28m left · step 5/8 repair_no_shutdown · 2m 10s elapsed', 'R2: step 3/8 collect_bgp_config · 1m elapsed']);
  });
});
