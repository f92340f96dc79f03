const tasks: (() => void)[] = [];
let installed = false;

/**
 * Runs `task` when the test process ends. Vitest ends its workers with SIGTERM, whose default
 * action skips 'exit' handlers: the signal is turned into a normal exit so cleanup still runs.
 */
export function atExit(task: () => void): void {
  tasks.push(task);
  if (installed) return;
  installed = true;
  process.once('exit', () => tasks.splice(0).forEach((t) => t()));
  process.once('SIGTERM', () => process.exit(143));
}
