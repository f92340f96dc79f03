import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { SecretScrubber } from '../adapters/log/secret-scrubber';
import { newRelayId } from '../adapters/team/coordinator';
import { readDecisionKey } from '../adapters/team/decision-seal';
import { openTeamStore } from '../adapters/team/open';
import { teamCluster } from '../adapters/team/team-cluster';
import type { RelayConfig } from '../config/schema';
import { createFileBackends } from '../core/incidents/file-backend';
import { createPersistentStore } from '../core/incidents/persistent-store';
import { fileQuarantine } from '../core/quarantine/file-backend';
import type { IncidentStore, KeyValueBackend } from '../core/incidents/store';
import { dataFolderKeeps, openTeamKeepingQuarantines } from './data-folder-keeps';
import { laptopRelayCluster } from './laptop-cluster';
import type { Relay, RelayCluster } from './relay-contract';

/**
 * Where a relay keeps its incidents, and who it shares them with: a team relay (DATABASE_URL) in
 * PostgreSQL with the other relays on it, its cluster the team (a quarantine written to its data
 * folder first, until the database has it); a laptop relay in files in its data
 * folder (or the tray's backends), alone, its quarantines and held requests there too.
 */
export async function openRelayStore(
  config: RelayConfig,
  opts: { logger: Logger; port?: number; scrubber?: SecretScrubber; backends?: { open: KeyValueBackend; archive: KeyValueBackend } },
  dataDir: string,
): Promise<{ store: IncidentStore; cluster: RelayCluster; team?: Awaited<ReturnType<typeof openTeamStore>> }> {
  const { logger } = opts;
  if (config.DATABASE_URL) {
    const url = config.DATABASE_URL;
    // Waited for while its data folder holds quarantines the database has not taken yet.
    const team = await openTeamKeepingQuarantines(() => openTeamStore({ url, retention: config.INCIDENT_RETENTION, leaseMs: config.RELAY_LEASE_MS, logger, relayId: teamRelayId(config, opts.port), decisionKey: teamDecisionKey(config, opts.scrubber) }), { dataDir, logger });
    return { store: team.store, cluster: teamCluster(team.coordinator, { quarantineFolder: fileQuarantine(dataDir) }), team };
  }
  const backends = opts.backends ?? createFileBackends(dataDir);
  const store = createPersistentStore({ backend: backends.open, archive: backends.archive, timelineDir: join(dataDir, 'timelines'), retention: config.INCIDENT_RETENTION, logger });
  return { store, cluster: laptopRelayCluster(dataDir, dataFolderKeeps(dataDir)) };
}

/** A team relay's heartbeat first, before it takes alerts: an incident this relay accepts must never look like a dead relay's. */
export async function startTeam(team: Awaited<ReturnType<typeof openTeamStore>> | undefined, relay: Pick<Relay, 'close'>): Promise<void> {
  await team?.coordinator.start().catch(async (error: unknown) => {
    await relay.close();
    await team.store.pool.end();
    throw error;
  });
}

/**
 * This relay's id on the team database: RELAY_ID, else host and port, so a relay restarted (a crash,
 * an upgrade) goes on with its own incidents at once instead of waiting for another to adopt them.
 */
function teamRelayId(config: RelayConfig, port: number | undefined): string {
  if (config.RELAY_ID) return config.RELAY_ID;
  const served = port ?? config.INGEST_PORT;
  return served === 0 ? newRelayId() : `${hostname()}:${served}`;
}

/** The team's decision key, from the setting or its file; a key read from a file joins the secrets no log line carries. */
function teamDecisionKey(config: RelayConfig, scrubber: SecretScrubber | undefined): string {
  const key = readDecisionKey(config);
  scrubber?.add(key);
  return key;
}
