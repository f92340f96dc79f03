import type { Cluster } from '../core/cluster/cluster';
import { createQuarantine, type QuarantineDeps } from '../core/quarantine/service';

/**
 * The relay's quarantines, read at start where its cluster keeps them (the team's database, which
 * every relay honours and reads again with each heartbeat for /health, with a team relay's data folder
 * written first until the database has a quarantine; the laptop's data folder, or memory).
 */
export async function openQuarantine(opts: Omit<QuarantineDeps, 'backend' | 'folder'> & { cluster: Pick<Cluster, 'quarantine' | 'quarantineFolder' | 'onBeat'> }) {
  const { quarantine: backend, quarantineFolder: folder } = opts.cluster;
  const quarantine = createQuarantine({ ...opts, backend, ...(folder ? { folder } : {}) });
  await quarantine.start();
  const offBeat = opts.cluster.onBeat(() => quarantine.refresh());
  return {
    ...quarantine,
    stop: () => {
      offBeat();
      quarantine.stop();
    },
  };
}
