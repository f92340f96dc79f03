import type { Bridge } from './contract';
import { createHttpBridge } from './http-bridge';

declare global {
  interface Window {
    /** Set by the tray's preload (contextBridge); absent in a plain browser. */
    faultRelay?: Bridge;
  }
}

/** Clipboard API where the page is a secure context, else the old selection copy. */
async function writeClipboard(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('The browser refused to copy: select the prompt and copy it by hand.');
}

/** The tray's bridge when the preload gave one, else the read-only HTTP bridge to this page's relay. */
export function selectBridge(win: Window = window): Bridge {
  if (win.faultRelay) return win.faultRelay;
  return createHttpBridge({
    baseUrl: win.location.origin,
    fetch: win.fetch.bind(win),
    EventSource: (win as Window & typeof globalThis).EventSource,
    writeClipboard,
  });
}
