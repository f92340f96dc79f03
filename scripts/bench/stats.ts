/** Shared by the benches: percentiles, timing, bounded waits, and paths taking turns. */

export const pct = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};

export const median = (xs: readonly number[]): number => pct(xs, 50);

export const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

export const fmt = (x: number): string => x.toFixed(2);

/** `promise`, or an error naming `what` after `timeoutMs`: a bench stops by itself, whatever goes wrong. */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`gave up after ${timeoutMs} ms waiting for ${what}`)), timeoutMs)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Samples of each path, taken in turns of `perTurn` whose order rotates round by round, until
 * each has `n`: paths that share a machine whose load drifts (the runtime's agents of earlier
 * alerts still working) meet the same load. `path(i)` returns one sample's milliseconds.
 */
export async function takeTurns(paths: ((i: number) => Promise<number>)[], n: number, perTurn = 5): Promise<number[][]> {
  const samples = paths.map((): number[] => []);
  for (let round = 0; round * perTurn < n; round++) {
    for (let t = 0; t < paths.length; t++) {
      const p = (round + t) % paths.length;
      for (let k = 0; k < perTurn && round * perTurn + k < n; k++) samples[p]?.push(await (paths[p] as (i: number) => Promise<number>)(round * perTurn + k));
    }
  }
  return samples;
}
