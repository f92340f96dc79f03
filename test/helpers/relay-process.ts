import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');

export interface RelayProcess {
  url: string;
  proc: ChildProcess;
  /** Every line the relay printed, for assertions about what it logs. */
  output: string[];
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * The headless relay as a user runs it (`npm run relay`), in its own process so a
 * test can SIGKILL it. One node process (`--import tsx`), so the kill is real.
 */
export async function spawnRelay(env: Record<string, string>): Promise<RelayProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/relay/main.ts'], {
    cwd: repoRoot,
    env: { ...process.env, INGEST_PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const onLine = (line: string) => {
      output.push(line);
      if (line.includes('"relay listening"')) {
        try {
          resolveUrl(JSON.parse(line).url);
        } catch (error) {
          reject(error);
        }
      }
    };
    createInterface({ input: proc.stdout! }).on('line', onLine);
    createInterface({ input: proc.stderr! }).on('line', onLine);
    proc.once('exit', (code) => reject(new Error(`relay exited with ${code} before listening:\n${output.join('\n')}`)));
  });
  return {
    url,
    proc,
    output,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
  };
}
