import { join } from 'node:path';
import { createConfBackends } from '../../src/incidents/conf-backend';
import { createPersistentStore } from '../../src/incidents/persistent-store';
import { silent } from '../helpers/relay';
import { tempDir } from '../helpers/temp-dir';
import { describeStoreContract } from './store-contract';

describeStoreContract('files (the laptop relay)', async () => {
  const dir = tempDir('fault-relay-store-');
  return {
    open: async (opts) => {
      const b = createConfBackends(dir);
      return createPersistentStore({ backend: b.open, archive: b.archive, timelineDir: join(dir, 'timelines'), retention: opts?.retention ?? 1000, logger: silent });
    },
  };
});
