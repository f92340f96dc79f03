import { setTimeout as pause } from 'node:timers/promises';
import type { Logger } from 'pino';
import { ConfigError } from '../config/load';
import { fileHeldRequests } from '../core/approvals/held-requests';
import { jitteredBackoff } from '../core/backoff';
import { errorText } from '../core/error-body';
import { fileQuarantine } from '../core/quarantine/file-backend';

/** What a laptop relay keeps in its data folder besides its incidents: quarantined devices and held approval requests. */
export const dataFolderKeeps = (dataDir: string) => ({ quarantine: fileQuarantine(dataDir), held: fileHeldRequests(dataDir) });

/**
 * Opens the team database (`open`). A relay that cannot reach it stops, in one line (it could not keep alerts);
 * unless its data folder holds quarantines the database has not taken yet (it was stopped while the
 * database was away): then it waits for the database, saying which devices and why, so that they
 * reach every relay as soon as the database is back, without anyone starting it again. It serves
 * nothing meanwhile, so no change reaches those devices from it.
 */
export async function openTeamKeepingQuarantines<T>(open: () => Promise<T>, opts: { dataDir: string; logger: Logger; retryMaxMs?: number }): Promise<T> {
  const backoff = jitteredBackoff({ baseMs: 500, maxMs: opts.retryMaxMs ?? 5_000 });
  for (let tries = 0; ; tries++) {
    try {
      return await open();
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      const kept = await fileQuarantine(opts.dataDir).load();
      if (kept.length === 0) throw error;
      const devices = kept.map((e) => e.device);
      opts.logger.error(
        { devices, tries: tries + 1 },
        `${errorText(error)}; ${devices.join(', ')} ${devices.length === 1 ? 'is' : 'are'} quarantined on this relay and not yet in the team database: waiting for the database to write ${devices.length === 1 ? 'it' : 'them'} there before anything else (this relay serves nothing meanwhile)`,
      );
      // A timer that keeps the process alive: waiting is all this relay does now.
      await pause(backoff(tries));
    }
  }
}
