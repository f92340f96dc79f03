import { afterAll } from 'vitest';
import { runFileEndTasks } from './helpers/at-exit';
import { removeTestLogDir } from './helpers/log-dir';

// After every test file's own afterAll hooks (they run first), so its relays and runtimes are closed by then.
afterAll(() => {
  removeTestLogDir();
  runFileEndTasks();
});
