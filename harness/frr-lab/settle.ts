import { followLines } from './log-follower';

/** The first pause between two looks at a router, and the longest: doubled after each look that found it unsettled. */
const FIRST_MS = 100;
const LONGEST_MS = 1_000;
/** After a log line, the pause before looking: a burst of lines (a session reset logs several) costs one look. */
const AFTER_LINE_MS = 50;
/**
 * The lines that say a router's state changed: a BGP session (ADJCHANGE, NOTIFICATION), an OSPF
 * adjacency (AdjChg, a refused DD packet), a link (zebra's RTM_NEWLINK). zebra's other debugging
 * lines (every route and neighbor it programs) wake nothing.
 */
const CHANGE = /%ADJCHANGE|%NOTIFICATION|AdjChg|Packet\[DD\]|RTM_NEWLINK/;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Asks `pending` until it answers undefined (settled) or the time is up; returns its last answer then
 * (what is still not so, for the caller's error). Each look starts a vtysh (~80 ms of CPU for its
 * command tree), so the pause between looks doubles from 100 ms to 1 s: a router settles within a
 * moment or within seconds. When `wakeOn` names router logs, a line there that says the state changed
 * (CHANGE) means a look at once, so a longer pause costs no latency where the router says when it
 * changed.
 */
export async function settle(pending: () => Promise<string | undefined>, timeoutMs: number, wakeOn: string[] = []): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  let lines = 0;
  let wake = () => {};
  const follower = wakeOn.length === 0 ? undefined : followLogs(wakeOn, (line) => {
    if (!CHANGE.test(line)) return;
    lines += 1;
    wake();
  });
  try {
    for (let pause = FIRST_MS; ; ) {
      const seen = lines;
      const left = await pending();
      if (left === undefined) return undefined;
      if (Date.now() > deadline) return left;
      // A line written while the router was being asked may be the change itself: look again soon.
      const woke = lines > seen || (await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), Math.min(pause, Math.max(0, deadline - Date.now()) + 1));
        wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
      }));
      wake = () => {};
      if (woke) {
        await sleep(AFTER_LINE_MS);
        pause = FIRST_MS;
      } else pause = Math.min(pause * 2, LONGEST_MS);
    }
  } finally {
    follower?.close();
  }
}

/** A log that cannot be followed (not there yet) only means no early looks: the pauses still bound the wait. */
function followLogs(files: string[], onLine: (line: string) => void): { close(): void } | undefined {
  try {
    return followLines(files, (_file, line) => onLine(line));
  } catch {
    return undefined;
  }
}

/**
 * The JSON documents at the start of one vtysh's output, in order, and the text after them: several
 * `show … json` commands (and one text command last) cost one vtysh when asked together.
 */
export function splitJsonOutputs(out: string, count: number): { docs: unknown[]; rest: string } {
  const docs: unknown[] = [];
  let at = 0;
  while (docs.length < count) {
    const start = out.indexOf('{', at);
    if (start < 0) throw new Error(`vtysh answered ${docs.length} JSON documents, not ${count}: ${out.slice(at, at + 200)}`);
    let depth = 0;
    let inString = false;
    let end = start;
    for (; end < out.length; end++) {
      const c = out[end];
      if (inString) {
        if (c === '\\') end++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) break;
    }
    docs.push(JSON.parse(out.slice(start, end + 1)));
    at = end + 1;
  }
  return { docs, rest: out.slice(at) };
}
