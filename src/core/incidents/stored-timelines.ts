import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { timelineEntrySchema, type TimelineEntry } from './model';
import { readTimelineFile } from './store-replay';
import { createTimelineAppenders } from './timeline-appenders';

/**
 * The incidents' timelines: append-only JSONL files in `timelineDir`, or in memory without one (tests).
 * Lines the disk refused are held in the order written and written first once it takes writes.
 */
export function createStoredTimelines(timelineDir: string | undefined, noteDiskError: (error: unknown) => void) {
  const memory = new Map<string, TimelineEntry[]>();
  const timelinePath = (id: string) => join(timelineDir as string, `${id}.jsonl`);
  const appenders = createTimelineAppenders(timelinePath);
  const pendingLines: Array<[id: string, text: string]> = [];

  return {
    get pending() {
      return pendingLines.length;
    },
    writePending() {
      while (pendingLines.length) {
        const [id, text] = pendingLines[0]!;
        appenders.append(id, text);
        pendingLines.shift();
      }
    },
    append(id: string, entry: TimelineEntry) {
      if (!timelineDir) {
        let list = memory.get(id);
        if (!list) memory.set(id, (list = []));
        list.push(entry);
        return;
      }
      const text = `${JSON.stringify(entry)}\n`;
      if (pendingLines.length === 0) {
        try {
          return appenders.append(id, text);
        } catch (error) {
          noteDiskError(error);
        }
      }
      pendingLines.push([id, text]);
    },
    read(id: string): TimelineEntry[] {
      if (!timelineDir) return [...(memory.get(id) ?? [])];
      const held = pendingLines.filter(([pid]) => pid === id).flatMap(([, text]) => {
        const parsed = timelineEntrySchema.safeParse(JSON.parse(text));
        return parsed.success ? [parsed.data] : [];
      });
      return [...readTimelineFile(timelinePath(id)), ...held];
    },
    /** An evicted incident's timeline goes with it. */
    remove(id: string) {
      memory.delete(id);
      if (!timelineDir) return;
      appenders.close(id);
      rmSync(timelinePath(id), { force: true });
    },
    closeAll: () => appenders.closeAll(),
  };
}
