import type { Logger } from 'pino';
import type { Incident } from '../../core/incidents/model';
import { databaseErrorMessage } from '../store-pg/database';
import type { RemoteChange, SharedIncidentStore } from '../store-pg/pg-store';
import type { TeamRepository } from '../store-pg/team-repository';

/** An incident this relay adopted from a dead one, as the database held it. */
export interface Adoption {
  incident: Incident;
  from: string;
}

/**
 * This relay's heartbeat on the `relays` table, and takeover of a dead relay's open incidents. Each
 * beat also runs the `tasks` (the safety nets for a notification missed while the listener reconnected).
 */
export function createHeartbeat(opts: {
  store: SharedIncidentStore;
  repo: TeamRepository;
  name: string;
  leaseMs: number;
  heartbeatMs: number;
  logger: Logger;
  emit(changes: RemoteChange[]): void;
  onAdopted(adopted: Adoption[]): void;
  tasks: ReadonlySet<() => Promise<void>>;
}) {
  const { store, repo, logger } = opts;
  const me = store.relayId;
  const leaseSeconds = opts.leaseMs / 1000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  /**
   * Since when this relay's heartbeats have been reaching the database without a gap. After an
   * outage every relay's heartbeat is old: a relay adopts nothing until it has itself been back for
   * a whole lease, which gives the others the time to show they are alive.
   */
  let beatingSince: number | undefined;
  /** At start the relay may adopt at once: relays that stopped cleanly or long ago left work behind. */
  let firstBeat = true;

  async function beat(): Promise<void> {
    try {
      await repo.heartbeat(me, opts.name);
    } catch (error) {
      beatingSince = undefined;
      throw error;
    }
    beatingSince ??= Date.now();
    try {
      if (Date.now() - beatingSince >= opts.leaseMs || firstBeat) await adoptFromDead();
      firstBeat = false;
    } finally {
      // The safety nets run even when adoption failed this time.
      for (const task of opts.tasks) await task().catch((error: unknown) => logger.warn({ err_message: databaseErrorMessage(error) }, 'team heartbeat task failed'));
    }
  }

  /** Open incidents of relays whose heartbeat stopped become this relay's, one row lock each. */
  async function adoptFromDead(): Promise<void> {
    const rows = await repo.adoptFromDead(me, leaseSeconds);
    if (rows.length === 0) return;
    const from = new Map(rows.map((r) => [r.incident_id, r.owner]));
    opts.emit(await store.refresh([...from.keys()]));
    // Memory may have held the same record already (only the owner changed): read it from there.
    const adopted = [...from].flatMap(([id, owner]) => {
      const incident = store.get(id);
      return incident ? [{ incident, from: owner }] : [];
    });
    for (const a of adopted) store.adopted(a.incident);
    logger.warn({ adopted: adopted.map((a) => a.incident.incident_id), from: [...new Set(from.values())] }, 'took over incidents of a relay that stopped');
    opts.onAdopted(adopted);
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(() => {
      beat()
        .catch((error: unknown) => logger.warn({ err_message: databaseErrorMessage(error) }, 'team heartbeat failed'))
        .finally(schedule);
    }, opts.heartbeatMs);
    timer.unref?.();
  }

  return {
    /** The first beat, awaited (an incident this relay accepts must never look like a dead relay's), then one every `heartbeatMs`. */
    async start(): Promise<void> {
      await beat();
      schedule();
    },
    stop(): void {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
