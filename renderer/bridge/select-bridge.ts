import type { Bridge } from './contract';
import { createHttpBridge, uiMeSchema } from './http-bridge';

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

/** Whether this browser is signed in as an approver; a relay that cannot say means no. */
async function signedInApprover(win: Window): Promise<boolean> {
  try {
    const res = await win.fetch(new URL('/ui/api/me', win.location.origin), { headers: { accept: 'application/json' }, credentials: 'same-origin' });
    return res.ok && uiMeSchema.parse(await res.json()).can_decide;
  } catch {
    return false;
  }
}

/** The tray's bridge when the preload gave one, else the HTTP bridge to this page's relay (deciding for a signed-in approver). */
export async function selectBridge(win: Window = window): Promise<Bridge> {
  if (win.faultRelay) return win.faultRelay;
  return createHttpBridge({
    baseUrl: win.location.origin,
    fetch: win.fetch.bind(win),
    EventSource: (win as Window & typeof globalThis).EventSource,
    writeClipboard,
    canDecide: await signedInApprover(win),
  });
}
