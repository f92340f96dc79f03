import type { Cluster } from '../core/cluster/cluster';
import { createQuarantine, type QuarantineDeps } from '../core/quarantine/service';

/**
 * The relay's quarantines, read at start where its cluster keeps them (the team's database, which
 * every relay honours and reads again with each heartbeat for /health; the laptop's data folder, or memory).
 */
export async function openQuarantine(opts: Omit<QuarantineDeps, 'backend'> & { cluster: Pick<Cluster, 'quarantine' | 'onBeat'> }) {
  const backend = opts.cluster.quarantine;
  const quarantine = createQuarantine({ ...opts, backend });
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
