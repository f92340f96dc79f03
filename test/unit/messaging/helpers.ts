import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type { Clock } from '../../../src/core/clock';
import type { CardSubmission, MessagingStatus } from '../../../src/adapters/channels/webex/schemas';

/**
 * A clock whose timers fire only when the test says so: `advance(ms)` moves time, `fire(ms)`
 * waits until a timer set for `ms` is scheduled and then moves time to it.
 */
export function createManualClock(start = Date.parse('2025-01-01T00:00:00Z')) {
  let now = start;
  let seq = 0;
  const scheduled = new EventEmitter();
  scheduled.setMaxListeners(0);
  const timers = new Map<number, { at: number; ms: number; fn: () => void }>();

  const advanceTo = (end: number) => {
    for (;;) {
      const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      timers.delete(due[0]);
      now = due[1].at;
      due[1].fn();
    }
    now = Math.max(now, end);
  };

  const waitFor = (ms: number) =>
    new Promise<void>((resolve) => {
      const has = () => [...timers.values()].some((x) => x.ms === ms);
      if (has()) return resolve();
      const on = () => {
        if (!has()) return;
        scheduled.off('scheduled', on);
        resolve();
      };
      scheduled.on('scheduled', on);
    });

  const clock: Clock & {
    advance(ms: number): void;
    waitFor(ms: number): Promise<void>;
    fire(ms: number): Promise<void>;
    pending(): number[];
  } = {
    now: () => new Date(now),
    setTimeout(fn, ms) {
      const id = ++seq;
      timers.set(id, { at: now + ms, ms, fn });
      scheduled.emit('scheduled');
      return { cancel: () => void timers.delete(id) };
    },
    advance: (ms) => advanceTo(now + ms),
    /** Resolves once a timer set for `ms` is waiting. */
    waitFor,
    fire(ms) {
      return new Promise<void>((resolve) => {
        let done = false;
        const attempt = () => {
          if (done) return true;
          const t = [...timers.values()].find((x) => x.ms === ms);
          if (!t) return false;
          done = true;
          scheduled.off('scheduled', onScheduled);
          advanceTo(t.at);
          resolve();
          return true;
        };
        // Never fire inside the caller's own setTimeout call.
        const onScheduled = () => queueMicrotask(attempt);
        if (!attempt()) scheduled.on('scheduled', onScheduled);
      });
    },
    /** Delays (from now) of the timers still waiting. */
    pending: () => [...timers.values()].map((t) => t.at - now),
  };
  return clock;
}

/** Collects what the bot reports, and lets a test await a condition over it. */
export function createProbe() {
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  const statuses: MessagingStatus[] = [];
  const submissions: CardSubmission[] = [];
  const until = (check: () => boolean) =>
    new Promise<void>((resolve) => {
      if (check()) return resolve();
      const on = () => {
        if (!check()) return;
        changes.off('change', on);
        resolve();
      };
      changes.on('change', on);
    });
  return {
    statuses,
    submissions,
    last: () => statuses[statuses.length - 1],
    onStatus: (s: MessagingStatus) => {
      statuses.push(s);
      changes.emit('change');
    },
    onCardSubmission: (s: CardSubmission) => {
      submissions.push(s);
      changes.emit('change');
    },
    until,
  };
}

/** A real pino logger whose output the test can read (to prove secrets stay out of it). */
export function captureLogger(): { logger: Logger; text(): string } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), text: () => lines.join('') };
}
