import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { CONFIRM_WITHIN_S, ROLLBACK_GRACE_S, type ChangeStatus } from '../../core/changes/device-contract';
import { DeviceError } from './errors';
import { deviceKey } from './inventory';
import type { DeviceDriver } from './driver';
import type { ChangeJournal, ChangeOutcome } from './pending-changes';
import { errorText } from '../../core/error-body';

/** What the change book needs: each device's driver and queue (device-slots.ts), never the device service. */
export interface ChangeHost {
  resolve(name: string): { device: string; driver: DeviceDriver };
  run<T>(device: string, work: () => Promise<T>): Promise<T>;
}

interface Live {
  status: ChangeStatus;
  /** The running configuration before the change, where the server keeps the guarantee; a device that reverts by itself keeps its own. */
  before: string;
  driver: DeviceDriver;
  timer?: NodeJS.Timeout;
}

/**
 * Provisional changes on the real devices: one pending change per device, journaled before its first
 * line, rolled back and verified by reading back when its deadline passes, when asked, when its SSH
 * session drops, when the server stops, and (from the journal) when the server starts again after a
 * crash. Confirming makes it final. NETCONF devices use their own confirmed commit, which reverts
 * natively; their outcomes are kept in memory only.
 */
export class ProvisionalChanges {
  private readonly live = new Map<string, Live>();
  /** Outcomes decided in this run; the journal holds them across runs. */
  private readonly decided = new Map<string, ChangeOutcome>();
  private readonly idle = new Set<() => void>();
  /** Applies under way: their lines may be on the device before their change is in `live`. */
  private applying = 0;
  /** Each apply under way by its change id: its status answers `pending` until the apply ends. */
  private readonly inflight = new Map<string, ChangeStatus>();

  constructor(
    private readonly host: ChangeHost,
    private readonly journal?: ChangeJournal,
    private readonly logger?: Logger,
  ) {}

  /**
   * `expectSha256`: the configuration fingerprint the change was previewed on; nothing is sent when the
   * device's differs. `changeId`: the id the caller chose, so it can ask about the change (status,
   * rollback) even when this call's answer never reaches it; one this server already knows is refused.
   */
  async apply(name: string, lines: string[], confirmWithinS: number, expectSha256?: string, changeId?: string): Promise<{ output: string; change: ChangeStatus }> {
    if (!Number.isInteger(confirmWithinS) || confirmWithinS < CONFIRM_WITHIN_S.min || confirmWithinS > CONFIRM_WITHIN_S.max) {
      throw new DeviceError('not_in_grammar', `confirm_within_s must be a whole number of seconds from ${CONFIRM_WITHIN_S.min} to ${CONFIRM_WITHIN_S.max}`);
    }
    const { device, driver } = this.host.resolve(name);
    const change_id = changeId ?? `chg-${randomBytes(6).toString('hex')}`;
    if (this.known(change_id)) throw new DeviceError('not_in_grammar', `change id ${change_id} is already used on this server; nothing was sent`);
    this.inflight.set(change_id, { change_id, device, state: 'pending', deadline: new Date(Date.now() + confirmWithinS * 1000).toISOString() });
    this.applying += 1;
    return this.host.run(device, () => this.applyNow(device, driver, lines, confirmWithinS, change_id, expectSha256)).finally(() => {
      this.inflight.delete(change_id);
      this.applying -= 1;
      this.checkIdle();
    });
  }

  private known(changeId: string): boolean {
    return this.inflight.has(changeId) || [...this.live.values()].some((l) => l.status.change_id === changeId) || this.decided.has(changeId) || this.journal?.outcome(changeId) !== undefined;
  }

  private async applyNow(device: string, driver: DeviceDriver, lines: string[], confirmWithinS: number, change_id: string, expectSha256?: string): Promise<{ output: string; change: ChangeStatus }> {
    const busy = this.live.get(device);
    if (busy) {
      throw new DeviceError('change_pending', `${device}: change ${busy.status.change_id} is pending until ${busy.status.deadline}; confirm or roll it back first (nothing was sent)`);
    }
    const deadline = new Date(Date.now() + confirmWithinS * 1000).toISOString();
    const status: ChangeStatus = { change_id, device, state: 'pending', deadline };
    this.inflight.set(change_id, status);
    const live: Live = { status, before: '', driver };
    let output: string;
    if (driver.revertsItself) {
      output = await driver.applyProvisional(lines, { confirmWithinS, ...(expectSha256 ? { expectSha256 } : {}) });
    } else {
      let journaled = false;
      try {
        const journal = (before: string) => {
          live.before = before;
          this.journal?.writePending({ change_id, device, before, lines, deadline });
          journaled = true;
        };
        output = await driver.applyProvisional(lines, { journal, ...(expectSha256 ? { expectSha256 } : {}) });
      } catch (error) {
        // The apply undid itself (or says why it could not): there is nothing left to confirm. Once
        // journaled, lines may have gone out: its outcome says how it ended, for a caller that never had the answer.
        if (journaled) this.record(failedApply(status, error));
        else this.journal?.removePending(change_id);
        throw error;
      }
      driver.onSessionLost(() => this.background(device, change_id, 'session_lost'));
    }
    live.timer = setTimeout(() => this.background(device, change_id, 'deadline'), Math.max(0, Date.parse(deadline) - Date.now()));
    this.live.set(device, live);
    this.logger?.info({ device, change_id, deadline }, 'provisional change applied; waiting for confirm');
    return { output, change: expectSha256 ? { ...status, before_sha256: expectSha256 } : status };
  }

  /** A rollback nobody waits for (timer, dropped session): its outcome is recorded, a failure only logged. */
  private background(device: string, changeId: string, reason: string): void {
    void this.rollback(device, changeId, reason).catch((error: unknown) =>
      this.logger?.debug({ device, change_id: changeId, reason, err: errorText(error) }, 'no rollback needed'),
    );
  }

  async confirm(name: string, changeId: string): Promise<ChangeStatus> {
    const { device } = this.host.resolve(name);
    return this.host.run(device, async () => {
      const live = this.find(device, changeId);
      if (Date.now() >= Date.parse(live.status.deadline)) {
        // Its timer is queued behind this call: too late is too late, whatever the queue's order.
        await this.rollBack(device, live, 'deadline');
        throw this.notPending(device, changeId);
      }
      try {
        await live.driver.confirm();
      } catch (error) {
        await this.rollBack(device, live, 'deadline');
        throw error;
      }
      clearTimeout(live.timer);
      const status = this.record({ ...live.status, state: 'confirmed', detail: 'confirmed: the change is final' });
      this.forget(device, live);
      return status;
    });
  }

  async rollback(name: string, changeId: string, reason: string): Promise<ChangeStatus> {
    const { device } = this.host.resolve(name);
    return this.host.run(device, async () => {
      const live = this.live.get(device);
      if (live?.status.change_id === changeId) return this.rollBack(device, live, reason);
      const known = this.outcome(device, changeId);
      if (known && known.status.state !== 'confirmed') return known.status;
      throw this.notPending(device, changeId);
    });
  }

  status(name: string, changeId: string): ChangeStatus {
    const { device } = this.host.resolve(name);
    const live = this.live.get(device);
    if (live?.status.change_id === changeId) return live.status;
    const applying = this.inflight.get(changeId);
    if (applying && deviceKey(applying.device) === deviceKey(device)) return applying;
    const known = this.outcome(device, changeId);
    if (!known) throw this.notPending(device, changeId);
    return known.status;
  }

  /** How many changes are waiting for a confirm or their deadline. */
  pendingCount(): number {
    return this.live.size + this.applying;
  }

  /** Calls `fn` each time the last pending change is decided (a supervised server may then exit). */
  onIdle(fn: () => void): () => void {
    this.idle.add(fn);
    return () => void this.idle.delete(fn);
  }

  private forget(device: string, live: Live): void {
    if (this.live.get(device) !== live) return;
    this.live.delete(device);
    this.checkIdle();
  }

  private checkIdle(): void {
    if (this.pendingCount() === 0) for (const fn of [...this.idle]) fn();
  }

  /**
   * On start: every change the journal still holds as pending is rolled back at once and verified,
   * or, with `resume` (a server started again for a relay that is still attached and may yet confirm),
   * kept until its own deadline, when it is rolled back as if this server had applied it.
   */
  async recover(mode: 'rollback' | 'resume' = 'rollback'): Promise<void> {
    if (!this.journal) return;
    const { entries, broken } = this.journal.pending();
    for (const b of broken) this.logger?.error({ file: b.file }, b.error);
    await Promise.all(
      entries.map(async (e) => {
        let device: string;
        let driver: DeviceDriver;
        try {
          ({ device, driver } = this.host.resolve(e.device));
        } catch {
          return this.logger?.error({ device: e.device, change_id: e.change_id }, 'a pending change names a device no longer in the inventory: check it by hand');
        }
        // Killed between recording a decision and clearing the entry: the decision stands (a confirmed change stays).
        const decided = this.journal!.outcome(e.change_id);
        if (decided && decided.status.state !== 'rollback_failed') return this.journal!.removePending(e.change_id);
        const live: Live = { status: { change_id: e.change_id, device, state: 'pending', deadline: e.deadline }, before: e.before, driver };
        this.live.set(device, live);
        const left = Date.parse(e.deadline) - Date.now();
        if (mode === 'resume' && left > 0) {
          live.timer = setTimeout(() => this.background(device, e.change_id, 'deadline'), left);
          return this.logger?.info({ device, change_id: e.change_id, deadline: e.deadline }, 'a pending change from the journal is kept until its deadline');
        }
        await this.host.run(device, () => this.rollBack(device, live, 'server_restart'));
      }),
    );
  }

  /** On a clean stop: pending changes are rolled back (NETCONF ones too, by cancel). */
  async close(): Promise<void> {
    await Promise.all([...this.live.entries()].map(([device, live]) => this.host.run(device, () => this.rollBack(device, live, 'server_stop')).catch(() => undefined)));
  }

  /** Inside the device's queue: put `before` back, read it back, record the outcome. */
  private async rollBack(device: string, live: Live, reason: string): Promise<ChangeStatus> {
    clearTimeout(live.timer);
    let state: ChangeStatus['state'];
    let detail: string;
    let done = true;
    try {
      const back = await live.driver.rollback(live.before);
      [state, detail] = [back.restored ? 'rolled_back' : 'rollback_failed', back.detail];
    } catch (error) {
      state = 'rollback_failed';
      detail = `the rollback could not be completed: ${errorText(error)}`;
      // The journal keeps it pending, so the next start tries again (a device that reverts by itself has no journal entry).
      done = live.driver.revertsItself;
    }
    const late = Math.round((Date.now() - Date.parse(live.status.deadline)) / 1000);
    if (late > ROLLBACK_GRACE_S) detail += ` (finished ${late} s after the deadline, later than the ${ROLLBACK_GRACE_S} s promised)`;
    const status = this.record({ ...live.status, state, reason, detail }, done);
    // Only now: while it is being rolled back, its status still answers (pending).
    this.forget(device, live);
    (state === 'rolled_back' ? this.logger?.info : this.logger?.error)?.call(this.logger, { device, change_id: status.change_id, reason, detail }, 'provisional change rolled back');
    return status;
  }

  private record(status: ChangeStatus, done = true): ChangeStatus {
    const outcome = { status, at: new Date().toISOString() };
    this.decided.set(status.change_id, outcome);
    this.journal?.writeOutcome(outcome);
    if (done) this.journal?.removePending(status.change_id);
    return status;
  }

  private outcome(device: string, changeId: string): ChangeOutcome | undefined {
    const o = this.decided.get(changeId) ?? this.journal?.outcome(changeId);
    return o && deviceKey(o.status.device) === deviceKey(device) ? o : undefined;
  }

  private find(device: string, changeId: string): Live {
    const live = this.live.get(device);
    if (live?.status.change_id === changeId) return live;
    throw this.notPending(device, changeId);
  }

  private notPending(device: string, changeId: string): DeviceError {
    const o = this.outcome(device, changeId);
    if (!o) return new DeviceError('not_pending', `change ${changeId} is unknown on ${device}`);
    const s = o.status;
    if (s.state === 'confirmed') return new DeviceError('not_pending', `change ${changeId} was confirmed at ${o.at}: it is already final`);
    const what = s.state === 'rolled_back' ? 'was rolled back' : 'was rolled back but could not be verified (rollback_failed)';
    return new DeviceError('not_pending', `change ${changeId} ${what} (${s.reason}) at ${o.at}${s.detail ? `: ${s.detail}` : ''}`);
  }
}

/** How an apply that failed after its journal entry ended: put back as before (read back), or not. */
function failedApply(status: ChangeStatus, error: unknown): ChangeStatus {
  const restored = error instanceof DeviceError && (!error.reached || error.failure.restored === true);
  return { ...status, state: restored ? 'rolled_back' : 'rollback_failed', reason: 'apply_failed', detail: `the apply failed: ${errorText(error)}`.slice(0, 1000) };
}
