import { describe, expect, it } from 'vitest';
import { trayStatus } from '../../../electron/tray-state';

describe('tray state', () => {
  it('is idle with nothing to do, and says it is starting before the first health check', () => {
    expect(trayStatus([], { ok: true })).toEqual({ state: 'idle', line: 'Idle: no active incidents' });
    expect(trayStatus([{ state: 'resolved' }], { ok: null })).toEqual({ state: 'idle', line: 'Starting…' });
  });

  it('counts queued and running incidents as runs in progress', () => {
    expect(trayStatus([{ state: 'running' }, { state: 'queued' }, { state: 'failed' }], { ok: true })).toEqual({ state: 'running', line: '2 runs in progress' });
  });

  it('shows a pending approval above everything, even a degraded runtime', () => {
    const status = trayStatus([{ state: 'awaiting_approval' }, { state: 'running' }], { ok: false, problem: 'agent runtime: connect ECONNREFUSED' });
    expect(status).toEqual({ state: 'awaiting_approval', line: '1 approval waiting for you · 1 run in progress' });
  });

  it('is degraded when a health check fails, naming what failed', () => {
    expect(trayStatus([{ state: 'running' }], { ok: false, problem: 'agent runtime: connect ECONNREFUSED' })).toEqual({
      state: 'degraded',
      line: 'Degraded: agent runtime: connect ECONNREFUSED',
    });
  });
});
