import { describe, expect, it } from 'vitest';
import type { UiEvent } from '../../../renderer/bridge/contract';
import type { EventChannel, EventChannels, RendererTransport } from '../../../electron/ipc/contract';
import { createDesktopBridge } from '../../../electron/ipc/desktop-bridge';

/** The preload's side over a transport the test plays the main process for. */
function fakeTransport(answers: Partial<Record<string, (...args: unknown[]) => unknown>>) {
  const listeners = new Map<string, Set<(payload: never) => void>>();
  const calls: [string, unknown[]][] = [];
  const transport: RendererTransport = {
    invoke: (async (channel: string, ...args: unknown[]) => {
      calls.push([channel, args]);
      const answer = answers[channel];
      if (!answer) throw new Error(`Error invoking remote method 'fault-relay:${channel}': IpcRequestError: ${channel}: argument 1: bad`);
      return answer(...args);
    }) as RendererTransport['invoke'],
    on(channel, listener) {
      const set = listeners.get(channel) ?? new Set();
      listeners.set(channel, set);
      set.add(listener);
      return () => set.delete(listener);
    },
  };
  const push = <K extends EventChannel>(channel: K, payload: EventChannels[K]) => listeners.get(channel)?.forEach((l) => l(payload as never));
  return { transport, push, calls };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('desktop bridge (preload)', () => {
  it('is the tray kind that may decide, and passes a decision through with its reason only when given', async () => {
    const { transport, calls } = fakeTransport({ decide: () => ({ status: 'accepted' }) });
    const bridge = createDesktopBridge(transport);
    expect([bridge.kind, bridge.canDecide]).toEqual(['desktop', true]);
    await bridge.decide('INC-1', 'REQ-AAAA-BBBB', 'APPROVED');
    await bridge.decide('INC-1', 'REQ-AAAA-BBBB', 'DENIED', 'wrong neighbor');
    expect(calls).toEqual([
      ['decide', ['INC-1', 'REQ-AAAA-BBBB', 'APPROVED']],
      ['decide', ['INC-1', 'REQ-AAAA-BBBB', 'DENIED', 'wrong neighbor']],
    ]);
  });

  it("shows the main process's own message, without Electron's invoke prefix", async () => {
    const bridge = createDesktopBridge(fakeTransport({}).transport);
    await expect(bridge.getIncident('x')).rejects.toThrow(/^getIncident: argument 1: bad$/);
  });

  it('subscribe delivers a snapshot, then live events, and stops on unsubscribe', async () => {
    const { transport, push } = fakeTransport({ listIncidents: () => [] });
    const bridge = createDesktopBridge(transport);
    const seen: UiEvent['type'][] = [];
    const off = bridge.subscribe((e) => seen.push(e.type));
    await flush();
    push('relay-event', { type: 'incident.timeline', incident_id: 'INC-1', entry: { at: 'now', type: 'note', message: 'hi' } });
    off();
    push('relay-event', { type: 'incident.timeline', incident_id: 'INC-1', entry: { at: 'now', type: 'note', message: 'late' } });
    expect(seen).toEqual(['snapshot', 'incident.timeline']);
  });

  it('keeps an open-incident request made before the page listens, and delivers it once', () => {
    const { transport, push } = fakeTransport({});
    const bridge = createDesktopBridge(transport);
    push('open-incident', 'INC-7');
    const opened: string[] = [];
    bridge.onOpenIncident?.((id) => opened.push(id));
    push('open-incident', 'INC-8');
    expect(opened).toEqual(['INC-7', 'INC-8']);
  });
});
