import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { createInterface } from 'node:readline';

/**
 * A tiny Node program between the relay and opencode. It holds a pipe on its stdin from the
 * relay; when the relay dies in any way (even SIGKILL) the OS closes that pipe and the guard
 * takes opencode down with it, so no runtime is left orphaned holding a port. It reports the
 * runtime's pid and exit on fd 3 so the relay can tell a crash of opencode from one of the guard.
 * opencode runs in a process group of its own (not on Windows), taken down whole once it exits:
 * what it started (its git snapshots, local MCP servers) does not outlive it, still writing into
 * the data folder a stopped relay removes.
 * Plain CommonJS run with `-e`: works from tsx, plain node and Electron (ELECTRON_RUN_AS_NODE).
 */
const GUARD_SOURCE = String.raw`
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const [bin, graceMs, ...args] = process.argv.slice(1);
const report = (line) => { try { fs.writeSync(3, line + '\n'); } catch {} };
delete process.env.ELECTRON_RUN_AS_NODE;
const group = process.platform !== 'win32';
let child;
const killAll = () => {
  try { if (group && child && child.pid) process.kill(-child.pid, 'SIGKILL'); else if (child) child.kill('SIGKILL'); } catch {}
};
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  if (child) child.kill('SIGTERM');
  setTimeout(killAll, Number(graceMs)).unref();
};
// Before the runtime exists: a SIGTERM that came between its start and these lines would end the guard
// by default, leaving opencode (in a group of its own) running, and holding the guard's output open.
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, stop);
child = spawn(bin, args, { stdio: ['ignore', 'inherit', 'inherit'], detached: group });
if (child.pid) report('pid ' + child.pid);
child.on('error', (err) => { report('error ' + String(err && err.message).replace(/\n/g, ' ')); process.exit(127); });
child.on('exit', (code, signal) => { killAll(); report('exit ' + code + ' ' + signal); process.exit(code === null ? 1 : code); });
`;

export interface GuardedProcess {
  /** The guard itself. */
  guard: ChildProcess;
  /** opencode's stdout and stderr (the guard passes them through). */
  stdout: Readable;
  stderr: Readable;
  /** Resolves with opencode's pid, or undefined when it could not be started. */
  runtimePid: Promise<number | undefined>;
  /** Resolves once the guard has exited, with opencode's exit as the guard saw it. */
  exited: Promise<{ code: number | null; signal: string | null; error?: string }>;
}

export function spawnGuarded(
  bin: string,
  args: string[],
  { cwd, env, graceMs }: { cwd: string; env: NodeJS.ProcessEnv; graceMs: number },
): GuardedProcess {
  const guard = spawn(process.execPath, ['-e', GUARD_SOURCE, '--', bin, String(graceMs), ...args], {
    cwd,
    env: { ...env, ELECTRON_RUN_AS_NODE: '1' },
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });
  let resolvePid!: (pid: number | undefined) => void;
  const runtimePid = new Promise<number | undefined>((r) => (resolvePid = r));
  let runtimeExit: { code: number | null; signal: string | null; error?: string } | undefined;

  const control = guard.stdio[3] as Readable | null;
  if (control) {
    createInterface({ input: control }).on('line', (line) => {
      const [kind, a, b] = line.split(' ');
      if (kind === 'pid') resolvePid(Number(a));
      if (kind === 'exit') runtimeExit = { code: a === 'null' ? null : Number(a), signal: b === 'null' ? null : (b ?? null) };
      if (kind === 'error') runtimeExit = { code: null, signal: null, error: line.slice('error '.length) };
    });
  }
  const exited = new Promise<{ code: number | null; signal: string | null; error?: string }>((resolve) => {
    guard.once('error', (error) => {
      resolvePid(undefined);
      resolve({ code: null, signal: null, error: error.message });
    });
    guard.once('close', (code, signal) => {
      resolvePid(undefined);
      resolve(runtimeExit ?? { code, signal, error: 'runtime guard exited' });
    });
  });
  return { guard, stdout: guard.stdout, stderr: guard.stderr, runtimePid, exited };
}
