import type { Logger } from 'pino';
import type { Incidents } from '../../core/incidents/service';
import { StoreUnavailableError } from '../../core/incidents/store';
import { confirmRepository, type ConfirmRow } from '../store-pg/confirm-repository';
import { databaseErrorMessage } from '../store-pg/database';
import type { ConfirmResult } from '../../core/changes/confirmed-apply';
import { DECISION_CHANNEL } from './decisions';
import type { TeamCoordinator } from './coordinator';
import type { ForgedRows } from './forged-rows';

const POLL_MS = 200;

/**
 * A person's confirm of a provisional change on a team relay: like a decision, it is recorded in the
 * database first (the first confirm of a change wins), the relay that owns the incident applies it,
 * and the relay that took the request answers its caller with the owner's outcome. A non-owner never
 * calls the device tool server or writes the owner's incident itself.
 */
export function createTeamConfirms(deps: {
  team: TeamCoordinator;
  incidents: Pick<Incidents, 'get'>;
  /** The owner's own confirm (src/core/changes/confirmed-apply.ts). */
  confirmLocally(incidentId: string, changeId: string, person: string): Promise<ConfirmResult>;
  logger: Logger;
  forged: ForgedRows;
  /** How long a non-owner waits for the owner's answer before it says the confirm is recorded. */
  answerWaitMs?: number;
}) {
  const { team, incidents, logger } = deps;
  const repo = confirmRepository(team.pool);
  const waitMs = deps.answerWaitMs ?? 15_000;
  /** The MAC a confirm of `changeId` must carry: the change and the lines approved for it as this relay holds them. */
  const macFor = (row: Pick<ConfirmRow, 'incident_id' | 'change_id' | 'by_name' | 'requested_at'>) =>
    team.seal.confirm({ ...row, lines_sha256: incidents.get(row.incident_id)?.approval_request?.lines_sha256 ?? '' });
  const verified = (row: ConfirmRow) => team.seal.verifies(macFor(row), row.mac);
  /** Whether the row holds the owner's own answer (not one written into the database by anyone else). */
  const answered = (row: ConfirmRow): row is ConfirmRow & { applied_at: string } =>
    row.applied_at !== null && team.seal.verifies(team.seal.confirmResult({ ...row, applied_at: row.applied_at }), row.result_mac);

  /**
   * The NOTIFY and the heartbeat's sweep can both find the same confirm waiting: a second apply
   * while the first runs joins it. Else the second met the change the first had just confirmed,
   * got 'not_pending', and the caller was told whichever answer the database took first.
   */
  const applying = new Map<string, Promise<void>>();
  function apply(incidentId: string, changeId: string): Promise<void> {
    const key = JSON.stringify([incidentId, changeId]);
    const running = applying.get(key);
    if (running) return running;
    const once = applyOnce(incidentId, changeId).finally(() => applying.delete(key));
    applying.set(key, once);
    return once;
  }
  async function applyOnce(incidentId: string, changeId: string): Promise<void> {
    const row = await repo.get(incidentId, changeId);
    if (!row || answered(row)) return;
    // One nobody of this team signed keeps nothing; it is told on the timeline when it names the incident's own change.
    if (!verified(row)) return deps.forged.report('confirm', incidentId, changeId, row.mac, incidents.get(incidentId)?.change?.change_id === changeId);
    const result = await deps.confirmLocally(incidentId, changeId, row.by_name);
    const appliedAt = new Date().toISOString();
    const settled = { incident_id: incidentId, change_id: changeId, applied_at: appliedAt, result };
    // An answer already there that is not the owner's was written by someone else: this one replaces it.
    await repo.settle({ ...settled, result_mac: team.seal.confirmResult(settled) }, row.applied_at !== null);
    logger.info({ incident_id: incidentId, change_id: changeId, ok: result.ok }, 'a confirm recorded by another relay was applied');
  }
  const offNotified = team.onDecision(async (incidentId, changeId, kind) => {
    if (kind === 'confirm' && team.owns(incidentId)) await apply(incidentId, changeId);
  });
  // The safety net for a notification lost while the listener reconnected, or an owner that changed.
  const offSwept = team.onBeat(async () => {
    for (const row of await repo.waiting(team.relayId)) if (team.owns(row.incident_id) && !answered(row)) await apply(row.incident_id, row.change_id);
  });

  async function answer(incidentId: string, changeId: string): Promise<ConfirmResult | undefined> {
    const until = Date.now() + waitMs;
    for (;;) {
      const row = await repo.get(incidentId, changeId);
      if (row && answered(row)) return row.result as ConfirmResult;
      if (Date.now() > until) return undefined;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  return {
    async confirm(incidentId: string, changeId: string, person: string): Promise<ConfirmResult> {
      if (team.owns(incidentId)) return deps.confirmLocally(incidentId, changeId, person);
      const incident = incidents.get(incidentId);
      if (!incident) return { ok: false, code: 'unknown_incident', message: `No incident ${incidentId}` };
      const change = incident.change;
      if (!change) return { ok: false, code: 'no_change', message: `${incidentId} has no applied change to confirm` };
      if (change.change_id !== changeId) return { ok: false, code: 'stale_change', message: `That confirm was for change ${changeId}; the incident's change is ${change.change_id}. Nothing changed.`, change };
      try {
        const fields = { incident_id: incidentId, change_id: changeId, by_name: person, requested_at: new Date().toISOString(), received_by: team.relayId };
        const row = { ...fields, mac: macFor(fields) };
        let first = await repo.record(row);
        const held = first ? undefined : await repo.get(incidentId, changeId);
        if (held && !verified(held)) {
          // A row nobody of this team signed holds the change's place: it confirms nothing and gives way.
          deps.forged.report('confirm', incidentId, changeId, held.mac, false);
          await repo.drop(held);
          first = await repo.record(row);
        }
        if (first) await team.repo.notify(DECISION_CHANNEL, { i: incidentId, q: changeId, k: 'confirm' });
        const result = await answer(incidentId, changeId);
        if (result) {
          // Another person's confirm of the same change came first: this one changed nothing.
          if (!first && result.ok) return { ok: false, code: 'not_pending', message: `the change on ${change.device} was already confirmed`, change: result.change };
          return result;
        }
        return { ok: false, code: 'recorded', message: `The confirm is recorded; the relay running ${incidentId} has not applied it within ${Math.round(waitMs / 1000)} s. It applies it before the change's deadline (${change.deadline}) if it is still pending.` };
      } catch (error) {
        throw new StoreUnavailableError(`the confirm could not be recorded: the incident database is not reachable: ${databaseErrorMessage(error)}`);
      }
    },
    stop(): void {
      offNotified();
      offSwept();
    },
  };
}
