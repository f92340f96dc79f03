import type { Bridge, UiEvent } from '../../renderer/bridge/contract';
import type { ArgsOf, RendererTransport, RequestChannel, ResultOf } from './contract';

/** Electron prefixes rejected invokes with the channel and error name; the page needs the message. */
const ELECTRON_PREFIX = /^Error invoking remote method '[^']*': (?:[A-Za-z]*Error: )?/;

/**
 * The Bridge the preload exposes as `window.faultRelay`: named domain methods over the typed
 * transport, never a generic send/invoke/on, so the page can ask for nothing else.
 */
export function createDesktopBridge(transport: RendererTransport): Bridge {
  const call = async <K extends RequestChannel>(channel: K, ...args: ArgsOf<K>): Promise<ResultOf<K>> => {
    try {
      return await transport.invoke(channel, ...args);
    } catch (error) {
      // Not errorText(): it would bundle zod into the sandboxed preload; an invoke rejects with an Error.
      throw new Error((error instanceof Error ? error.message : String(error)).replace(ELECTRON_PREFIX, ''));
    }
  };

  // A notification click may open the window before the page listens: keep the last request for it.
  let openHandler: ((incidentId: string) => void) | undefined;
  let pendingOpen: string | undefined;
  transport.on('open-incident', (incidentId) => {
    if (openHandler) openHandler(incidentId);
    else pendingOpen = incidentId;
  });

  return {
    kind: 'desktop',
    canDecide: true,
    listIncidents: () => call('listIncidents'),
    getIncident: (incidentId) => call('getIncident', incidentId),
    subscribe(onEvent: (event: UiEvent) => void) {
      // Listen first, then snapshot: the snapshot is computed after every event already sent, so it is never older.
      const off = transport.on('relay-event', onEvent);
      let live = true;
      call('listIncidents')
        .then((incidents) => live && onEvent({ type: 'snapshot', incidents }))
        .catch(() => {});
      return () => {
        live = false;
        off();
      };
    },
    health: () => call('health'),
    sessionLog: (incidentId) => call('sessionLog', incidentId),
    exportEvidence: (incidentId, format) => call('exportEvidence', incidentId, format),
    listArtifactGroups: () => call('listArtifactGroups'),
    directPrompt: (input) => call('directPrompt', input),
    copyText: (text) => call('copyText', text),
    confirmChange: (incidentId, changeId) => call('confirmChange', incidentId, changeId),
    clearDevice: (device) => call('clearDevice', device),
    incidentAction: (incidentId, action) => call('incidentAction', incidentId, action),
    decide: (incidentId, requestId, decision, reason) => (reason === undefined ? call('decide', incidentId, requestId, decision) : call('decide', incidentId, requestId, decision, reason)),
    getSettings: () => call('getSettings'),
    saveSettings: (values) => call('saveSettings', values),
    onOpenIncident(handler) {
      openHandler = handler;
      if (pendingOpen) {
        const id = pendingOpen;
        pendingOpen = undefined;
        handler(id);
      }
      return () => {
        if (openHandler === handler) openHandler = undefined;
      };
    },
  };
}
