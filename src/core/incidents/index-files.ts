import { isTerminal, type Incident } from './model';
import type { KeyValueBackend } from './store';

export const INDEX_KEY = 'incidents';

export interface IndexFilesOptions {
  /** Open incidents. */
  backend: KeyValueBackend;
  /** Finished incidents; the same as `backend` when they share one file. */
  archive: KeyValueBackend;
  index: Map<string, Incident>;
  /** What the files' records are sealed with. */
  stamp: string;
}

/**
 * The index files: the open incidents in one, the finished in the archive. The archive is rewritten
 * only when it may differ from the finished incidents held (or is not sealed yet).
 */
export function createIndexFiles({ backend, archive, index, stamp }: IndexFilesOptions, touched: ReadonlySet<string>) {
  const split = archive !== backend;
  let archiveStale = !split || archive.sealOf?.(INDEX_KEY) !== stamp || [...touched].some((id) => isTerminal(index.get(id)?.state ?? 'queued'));
  const lists = () => {
    const all = [...index.values()];
    return split ? { open: all.filter((i) => !isTerminal(i.state)), done: all.filter((i) => isTerminal(i.state)) } : { open: all, done: [] };
  };
  return {
    markArchiveStale() {
      archiveStale = true;
    },
    /** Without a log: an open incident's change rewrites the open file only, an ending both. */
    persistWrite(incident: Incident, wasOpen: boolean) {
      const { open, done } = lists();
      if (isTerminal(incident.state) && split) archive.set(INDEX_KEY, done, stamp);
      if (!isTerminal(incident.state) || wasOpen || !split) backend.set(INDEX_KEY, open, stamp);
    },
    /** Both files at once, synchronously (start and stop). */
    persist() {
      const { open, done } = lists();
      if (split && archiveStale) archive.set(INDEX_KEY, done, stamp);
      archiveStale = false;
      backend.set(INDEX_KEY, open, stamp);
    },
    /**
     * Both files off the alert's path, for a compaction: the bytes written and how many incidents
     * they hold. `bytesPerIncident` sizes a write made by a backend that cannot count its bytes.
     */
    async write(bytesPerIncident: number): Promise<{ bytes: number; incidents: number }> {
      const { open, done } = lists();
      const write = async (b: KeyValueBackend, list: Incident[]) => (b.setList ? b.setList(INDEX_KEY, list, stamp) : (b.set(INDEX_KEY, list, stamp), list.length * bytesPerIncident));
      // Taken with the snapshot: an ending after it marks the archive again, and a failed write puts the mark back.
      const archiveToo = split && archiveStale;
      archiveStale = false;
      let bytes = 0;
      try {
        if (archiveToo) bytes += await write(archive, done);
      } catch (error) {
        archiveStale = true;
        throw error;
      }
      bytes += await write(backend, open);
      return { bytes, incidents: open.length + (archiveToo ? done.length : 0) };
    },
  };
}
export type IndexFiles = ReturnType<typeof createIndexFiles>;
