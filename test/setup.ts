import { afterAll } from 'vitest';
import { removeTestLogDir } from './helpers/log-dir';

// After every test file's own afterAll hooks (they run first), so its relays are closed by then.
afterAll(() => removeTestLogDir());
