import { closeSync, openSync, readSync, statSync, watch, type FSWatcher } from 'node:fs';

/**
 * Follows log files from their current end (as `tail -n0 -F`), handing over each whole new line with
 * the file it came from. inotify wakes it; a slow poll covers file systems where that is not delivered.
 */
export function followLines(files: string[], onLine: (file: string, line: string) => void, pollMs = 500): { close(): void } {
  const state = files.map((file) => ({ file, offset: size(file), partial: '' }));
  const read = (s: (typeof state)[number]) => {
    const end = size(s.file);
    if (end < s.offset) s.offset = 0; // rotated or truncated: start again from the top
    if (end === s.offset) return;
    const fd = openSync(s.file, 'r');
    try {
      const buf = Buffer.alloc(end - s.offset);
      readSync(fd, buf, 0, buf.length, s.offset);
      s.offset = end;
      const text = s.partial + buf.toString('utf8');
      const lines = text.split('\n');
      s.partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) onLine(s.file, line);
    } finally {
      closeSync(fd);
    }
  };
  const watchers: FSWatcher[] = state.map((s) => watch(s.file, () => read(s)));
  const timer = setInterval(() => state.forEach(read), pollMs);
  timer.unref();
  return {
    close() {
      clearInterval(timer);
      for (const w of watchers) w.close();
    },
  };
}

function size(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
