import { closeSync, openSync } from 'node:fs';
import { appendWhole } from './append-file';

/**
 * The timeline files written to most recently, kept open: a line is one write instead of an open,
 * a write and a close. A run's progress is dozens of lines, written on the event loop that also
 * answers alerts. Appends go to the page cache as before (kill -9 loses none of them).
 */
export function createTimelineAppenders(pathOf: (id: string) => string, max = 64) {
  /** Least recently written first. */
  const open = new Map<string, number>();
  const close = (id: string) => {
    const fd = open.get(id);
    if (fd === undefined) return;
    open.delete(id);
    closeSync(fd);
  };
  return {
    append(id: string, text: string): void {
      let fd = open.get(id);
      if (fd === undefined) {
        fd = openSync(pathOf(id), 'a', 0o600);
        if (open.size >= max) close(open.keys().next().value as string);
      } else open.delete(id);
      open.set(id, fd);
      appendWhole(fd, pathOf(id), Buffer.from(text));
    },
    /** Before the file is removed: a line written to a removed file would be lost. */
    close,
    closeAll(): void {
      for (const id of [...open.keys()]) close(id);
    },
  };
}
