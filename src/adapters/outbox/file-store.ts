import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendWhole } from '../../core/incidents/append-file';
import { replaceFileDurably } from '../../core/incidents/file-backend';
import type { OutboxItem, OutboxStore, Outcome, StoredItem } from './types';

/** Finished keys remembered for dedup once the file is compacted; older ones are forgotten. */
const REMEMBERED_KEYS = 20_000;
/** The file is rewritten at open when it holds more lines than this and most are finished. */
const COMPACT_AFTER_LINES = 2_000;

type Line =
  | { op: 'add'; key: string; kind: string; payload: unknown; at: string; units?: number }
  | { op: 'retry'; key: string; attempts: number; not_before: string; reason: string }
  | { op: 'done'; key: string; outcome: Outcome; reason?: string; at: string };

interface Pending extends StoredItem {
  not_before: number;
}

/**
 * The laptop's outbox: one append-only file `outbox-<name>.jsonl` in the data folder, each line
 * fsynced before the call returns, so an item enqueued survives a kill -9 the next moment. A line
 * torn by a crash is skipped when the file is read again; the file is compacted at open.
 */
export function openFileOutboxStore(dataDir: string, name: string): OutboxStore & { path: string } {
  if (!/^[a-z0-9-]{1,40}$/.test(name)) throw new Error(`outbox name must be lowercase letters, digits and dashes: ${name}`);
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, `outbox-${name}.jsonl`);
  const pending = new Map<string, Pending>();
  const finished = new Set<string>();
  const claimed = new Set<string>();
  let lines = 0;
  if (existsSync(path)) {
    for (const raw of readFileSync(path, 'utf8').split('\n')) {
      const line = parse(raw);
      if (!line) continue;
      lines += 1;
      if (line.op === 'add' && !finished.has(line.key) && !pending.has(line.key)) {
        pending.set(line.key, { key: line.key, kind: line.kind, payload: line.payload, ...(line.units !== undefined ? { units: line.units } : {}), attempts: 0, enqueued_at: line.at, not_before: 0 });
      } else if (line.op === 'retry') {
        const item = pending.get(line.key);
        if (item) Object.assign(item, { attempts: line.attempts, not_before: Date.parse(line.not_before) });
      } else if (line.op === 'done') {
        pending.delete(line.key);
        finished.add(line.key);
      }
    }
  }
  if (lines > COMPACT_AFTER_LINES && finished.size > pending.size) compact();
  let fd: number | undefined = openSync(path, 'a', 0o600);
  // A crash may have left a torn last line without its newline: the next line starts clean.
  appendWhole(fd, path, Buffer.from('\n'));

  function write(line: Line): void {
    if (fd === undefined) throw new Error(`outbox ${name} is closed`);
    appendWhole(fd, path, Buffer.from(`${JSON.stringify(line)}\n`));
    fsyncSync(fd);
  }

  function compact(): void {
    const keep = [...finished].slice(-REMEMBERED_KEYS).map((key) => JSON.stringify({ op: 'done', key, outcome: 'sent', at: '' }));
    for (const item of pending.values()) {
      keep.push(JSON.stringify({ op: 'add', key: item.key, kind: item.kind, payload: item.payload, at: item.enqueued_at, ...(item.units !== undefined ? { units: item.units } : {}) }));
      if (item.attempts > 0) keep.push(JSON.stringify({ op: 'retry', key: item.key, attempts: item.attempts, not_before: new Date(item.not_before).toISOString(), reason: '' }));
    }
    replaceFileDurably(path, keep.length ? `${keep.join('\n')}\n` : '');
  }

  return {
    path,
    async add(item: OutboxItem, now: Date): Promise<boolean> {
      if (pending.has(item.key) || finished.has(item.key)) return false;
      const at = now.toISOString();
      write({ op: 'add', key: item.key, kind: item.kind, payload: item.payload, at, ...(item.units !== undefined ? { units: item.units } : {}) });
      pending.set(item.key, { ...item, attempts: 0, enqueued_at: at, not_before: 0 });
      return true;
    },
    async claim(now: Date, _leaseMs: number, limit: number): Promise<StoredItem[]> {
      const due: StoredItem[] = [];
      for (const item of pending.values()) {
        if (due.length >= limit) break;
        if (claimed.has(item.key) || item.not_before > now.getTime()) continue;
        claimed.add(item.key);
        const { not_before: _, ...stored } = item;
        due.push(stored);
      }
      return due;
    },
    async finish(key: string, outcome: Outcome, reason: string | undefined, now: Date): Promise<void> {
      write({ op: 'done', key, outcome, ...(reason ? { reason } : {}), at: now.toISOString() });
      pending.delete(key);
      claimed.delete(key);
      finished.add(key);
    },
    async retryAt(key: string, attempts: number, notBefore: Date, reason: string): Promise<void> {
      write({ op: 'retry', key, attempts, not_before: notBefore.toISOString(), reason });
      const item = pending.get(key);
      if (item) Object.assign(item, { attempts, not_before: notBefore.getTime() });
      claimed.delete(key);
    },
    async backlog(): Promise<number> {
      return pending.size;
    },
    async backlogUnits(): Promise<number> {
      let units = 0;
      for (const item of pending.values()) units += item.units ?? 1;
      return units;
    },
    async nextDue(): Promise<Date | undefined> {
      let next: number | undefined;
      for (const item of pending.values()) if (!claimed.has(item.key)) next = Math.min(next ?? Infinity, item.not_before);
      return next === undefined ? undefined : new Date(next);
    },
    async close(): Promise<void> {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

function parse(raw: string): Line | undefined {
  if (!raw.trim()) return undefined;
  try {
    const line = JSON.parse(raw) as Line;
    return typeof line?.key === 'string' && ['add', 'retry', 'done'].includes(line.op) ? line : undefined;
  } catch {
    return undefined;
  }
}
