const tasks: (() => void)[] = [];
let installed = false;

/** Each task on its own: one that throws (a folder still being written) must not skip the others. */
function runAll(): void {
  for (const task of tasks.splice(0)) {
    try {
      task();
    } catch {
      /* the others still run */
    }
  }
}

/**
 * Runs `task` once the current test file is done: from test/setup.ts's afterAll, which runs after
 * the file's own afterAll hooks (so its processes are stopped by then). Not left to the process's
 * exit: vitest ends a worker with SIGTERM and SIGKILLs it 500 ms later, too soon on a loaded machine
 * to remove a runtime's data folder (a CI run left half of one). The exit is only the fallback, for
 * a worker ended early; SIGTERM's default action skips 'exit' handlers, so it becomes a normal exit.
 */
export function atExit(task: () => void): void {
  tasks.push(task);
  if (installed) return;
  installed = true;
  process.once('exit', runAll);
  process.once('SIGTERM', () => process.exit(143));
}

/** The file's end: what atExit registered runs now (test/setup.ts). */
export const runFileEndTasks = runAll;
