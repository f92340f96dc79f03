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
  // Each task on its own: one that throws (a folder still being written) must not skip the others.
  process.once('exit', () =>
    tasks.splice(0).forEach((t) => {
      try {
        t();
      } catch {
        /* the others still run */
      }
    }),
  );
  process.once('SIGTERM', () => process.exit(143));
}
