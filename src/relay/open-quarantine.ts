import type { TeamCoordinator } from '../adapters/team/coordinator';
import { pgQuarantine } from '../adapters/store-pg/quarantine-repository';
import { memoryQuarantine, type QuarantineBackend } from '../core/quarantine/entry';
import { createQuarantine, type QuarantineDeps } from '../core/quarantine/service';

/**
 * The relay's quarantines, read at start: the team's database for a team relay (every relay honours
 * the same rows, read again with each heartbeat for /health), else the backend given (the laptop's
 * data folder, from start-headless), else memory. A team relay given its data folder (`folder`)
 * writes each quarantine there first and, at start, writes what it kept there to the database
 * before anything else.
 */
export async function openQuarantine(opts: Omit<QuarantineDeps, 'backend'> & { backend?: QuarantineBackend; team?: TeamCoordinator }) {
  const backend = opts.backend ?? (opts.team ? pgQuarantine(opts.team.pool) : memoryQuarantine());
  const quarantine = createQuarantine({ ...opts, backend });
  await quarantine.start();
  const offBeat = opts.team?.onBeat(() => quarantine.refresh()) ?? (() => undefined);
  return {
    ...quarantine,
    stop: () => {
      offBeat();
      quarantine.stop();
    },
  };
}
