/** The part of Electron's WebFrameMain a sender check reads. */
export interface SenderFrame {
  readonly url: string;
  readonly parent: unknown;
}

/**
 * Only our own renderer's top frame may call the main process. A frame that navigated
 * elsewhere, a subframe, or a frame already gone (null) is refused: the check runs on
 * every call because a page can change under the same webContents.
 */
export function createSenderCheck(rendererUrl: string): (frame: SenderFrame | null | undefined) => boolean {
  const expected = new URL(rendererUrl);
  return (frame) => {
    if (!frame || frame.parent) return false;
    let actual: URL;
    try {
      actual = new URL(frame.url);
    } catch {
      return false;
    }
    // Hash and query are the renderer's own routing state; the document itself must be ours.
    return actual.protocol === expected.protocol && actual.host === expected.host && actual.pathname === expected.pathname;
  };
}
