import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * opencode takes a git snapshot of the project folder before and after every model step (for a
 * client's undo): two scans of the whole checkout per step, most of a scripted step's CPU. The
 * relay never undoes a step, and the scripted runs change no project file but the agent's log, so
 * the demo's and the tests' runtimes are told not to (`snapshot: false` in the runtime home's own
 * opencode config, which the relay's shipped-config check does not cover). A runtime the relay
 * starts for itself keeps opencode's default, and so must a test that stops a run mid-step
 * (`startDemoStack({ snapshots: true })`): without snapshots opencode ends such a run differently.
 */
export function withoutSnapshots(env: Record<string, string>): Record<string, string> {
  const home = env.XDG_CONFIG_HOME;
  if (!home) throw new Error('withoutSnapshots needs the runtime home (XDG_CONFIG_HOME) it writes its config into');
  const dir = path.join(home, 'opencode');
  const file = path.join(dir, 'opencode.json');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, JSON.stringify({ snapshot: false }));
  }
  return env;
}
