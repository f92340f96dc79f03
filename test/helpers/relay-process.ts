import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');

export interface RelayProcess {
  url: string;
  proc: ChildProcess;
  /** Every line the relay printed, for assertions about what it logs. */
  output: string[];
  /** The agent session an incident was delivered to, once the relay logs it (at once if it has). */
  delivered(incidentId: string): Promise<string>;
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** kill -9 of the relay's whole process group (spawned with `ownGroup`), as a closed terminal or a crashed session would. */
  killGroup(): Promise<void>;
}

type LogLine = Record<string, unknown>;
const parse = (line: string): LogLine | undefined => {
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return undefined;
  }
};

/**
 * The headless relay as a user runs it (`npm run relay`), in its own process so a
 * test can SIGKILL it. One node process (`--import tsx`), so the kill is real.
 */
export async function spawnRelay(env: Record<string, string>, opts: { ownGroup?: boolean; onLine?: (line: string) => void } = {}): Promise<RelayProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/relay/main.ts'], {
    cwd: repoRoot,
    // Its own process group, so a test can kill the group without the test runner in it.
    detached: opts.ownGroup ?? false,
    env: { ...process.env, INGEST_PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const watchers = new Set<(line: LogLine) => void>();
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const onLine = (line: string) => {
      output.push(line);
      opts.onLine?.(line);
      const parsed = watchers.size ? parse(line) : undefined;
      if (parsed) for (const w of [...watchers]) w(parsed);
      if (line.includes('"relay listening"')) {
        try {
          resolveUrl(JSON.parse(line).url);
        } catch (error) {
          reject(error);
        }
      }
      // RELAY_CONSOLE=human: the same line as a person reads it on the terminal.
      const human = /^\d\d:\d\d:\d\d {2}relay listening {2}url=(\S+)/.exec(line);
      if (human) resolveUrl(human[1]!);
    };
    createInterface({ input: proc.stdout }).on('line', onLine);
    createInterface({ input: proc.stderr }).on('line', onLine);
    proc.once('exit', (code) => reject(new Error(`relay exited with ${code} before listening:\n${output.join('\n')}`)));
  });
  return {
    url,
    proc,
    output,
    delivered(incidentId) {
      const isIt = (l: LogLine | undefined) => l?.incident_id === incidentId && l.msg === 'incident delivered to the agent runtime' && typeof l.session_id === 'string';
      const seen = output.map(parse).find(isIt);
      if (seen) return Promise.resolve(seen.session_id as string);
      return new Promise((resolveSession, reject) => {
        const watch = (l: LogLine) => {
          if (!isIt(l)) return;
          watchers.delete(watch);
          resolveSession(l.session_id as string);
        };
        watchers.add(watch);
        void exited.then(() => reject(new Error(`the relay exited before delivering ${incidentId}`)));
      });
    },
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
    async killGroup() {
      if (!opts.ownGroup) throw new Error('spawnRelay: killGroup needs { ownGroup: true }');
      if (proc.exitCode === null && proc.signalCode === null) process.kill(-proc.pid!, 'SIGKILL');
      await exited;
    },
  };
}
