import type { Logger } from 'pino';
import { DeviceError } from '../errors';
import { approvedFragment } from './fragment';
import type { NetconfDeviceEntry } from './inventory';
import { cancelCommit, CAP, commit, commitConfirmed, discardChanges, editCandidate, getConfig, lock, unlock, validateCandidate } from './operations';
import { NETCONF_SHOWS } from './platform';
import { NetconfRpcError } from './rpc-error';
import { NetconfSession } from './session';
import { configDifference, missingFrom, sameConfig } from './verify';
import { pretty, type XmlElement } from '../../../runbooks/xml';
import { checkFingerprint, type SeenConfigs } from '../config-fingerprint';
import { leafLines } from './preview';
import { errorText } from '../../../core/error-body';

/** A confirmed commit the device holds until it is confirmed, cancelled, or its timer reverts it. */
export interface PendingCommit {
  /** The session that committed: only it may confirm (RFC 6241 §8.4.1, no `<persist>`), and its end reverts the change. */
  session: NetconfSession;
  before: XmlElement;
  fragment: XmlElement;
  timeoutS: number;
  /** Our clock, measured before the commit was sent: the device cannot revert earlier than this. */
  deadline: number;
}

/**
 * One NETCONF device: its session, reused across calls, and the confirmed commit of the last
 * change while it waits for a decision. DeviceService runs one call at a time per device, so no
 * call here overlaps another on the same device.
 */
export class NetconfDevice {
  private session: NetconfSession | undefined;
  pending: PendingCommit | undefined;

  constructor(
    readonly entry: NetconfDeviceEntry,
    private readonly knownHostsPath: string,
    private readonly logger?: Logger,
    /** The datastores previews read, for the summary of a fingerprint mismatch. */
    private readonly seen?: SeenConfigs,
  ) {}

  private get name() {
    return this.entry.name;
  }

  private async open(): Promise<NetconfSession> {
    if (this.session && !this.session.closed) return this.session;
    this.session = await NetconfSession.open(this.entry, this.knownHostsPath);
    this.logger?.info({ device: this.name, sessionId: this.session.sessionId, framing: this.session.framing }, 'NETCONF session opened');
    return this.session;
  }

  /** The read-only forms in NETCONF_SHOWS; one retry on a fresh session after a drop, as for CLI shows. */
  async show(command: string): Promise<string> {
    const form = NETCONF_SHOWS[command.trim().replace(/\s+/g, ' ').toLowerCase()];
    if (!form) throw new DeviceError('not_in_grammar', `${this.name}: "${command}" is not a NETCONF show form (${Object.keys(NETCONF_SHOWS).join(', ')})`);
    const once = async () => {
      const s = await this.open();
      if ('capabilities' in form) return [`session-id ${s.sessionId}, framing base:${s.framing}`, ...s.capabilities].join('\n');
      return pretty(await getConfig(s, form.source));
    };
    return once().catch((error: unknown) => {
      if (!(error instanceof DeviceError) || error.kind !== 'session_lost') throw error;
      return once();
    });
  }

  /**
   * The change: lock the candidate → reset it to running → edit-config → validate → commit
   * confirmed → read running back and compare with the fragment. On success the change is live but
   * provisional: `confirm()` keeps it, `cancel()` reverts it, and without either the device reverts
   * it when `confirm_timeout_s` runs out (or when this session ends). The candidate stays locked
   * until then, so no other manager edits it meanwhile. A failure at any step cancels what was
   * committed, discards the candidate, releases the lock, and reads running back.
   */
  async change(lines: string[], confirmTimeoutS?: number, expectSha256?: string): Promise<string> {
    const fragment = approvedFragment(this.name, lines);
    await this.settleExpired();
    if (this.pending) {
      throw new DeviceError('busy', `${this.name}: a confirmed commit is waiting for its decision until ${new Date(this.pending.deadline).toISOString()}: confirm or cancel it first`);
    }
    const s = await this.open();
    const timeoutS = confirmTimeoutS ?? this.entry.confirm_timeout_s;
    let before: XmlElement | undefined;
    let committed = false;
    let locked = false;
    s.takeWarnings();
    try {
      await lock(s, 'candidate');
      locked = true;
      before = await getConfig(s, 'running');
      // Read under the lock, so nobody else commits between this check and the change.
      if (expectSha256) checkFingerprint(this.name, expectSha256, leafLines(before), this.seen);
      // Leftovers of an earlier unlocked edit are not part of what was approved: start from running.
      await discardChanges(s);
      await editCandidate(s, this.name, fragment.text);
      const validated = await validateCandidate(s);
      const deadline = Date.now() + timeoutS * 1000;
      await commitConfirmed(s, this.name, timeoutS);
      committed = true;
      const missing = missingFrom(fragment.config, await getConfig(s, 'running'));
      if (missing.length) throw new DeviceError('rejected', `the device answered <ok/> to the commit, but running does not hold the change: ${missing.join('; ')}`, true);
      this.pending = { session: s, before, fragment: fragment.config, timeoutS, deadline };
      this.logger?.info({ device: this.name, timeoutS }, 'NETCONF confirmed commit applied and read back; waiting for confirm or cancel');
      return [
        `${this.name}: committed with a confirmed commit and read back: running holds the approved <config>.`,
        `It is provisional: the device reverts it by itself in ${timeoutS} s unless it is confirmed; cancel reverts it at once.`,
        validated === 'not-supported' ? 'The device does not offer <validate>; the commit validated it.' : '',
        ...s.takeWarnings().map((w) => `warning: ${w}`),
      ]
        .filter(Boolean)
        .join('\n');
    } catch (error) {
      if (error instanceof DeviceError && error.kind === 'fingerprint_mismatch') {
        // Nothing was edited: the lock is released and the refusal goes out as it is (its detail with it).
        await unlock(s, 'candidate').catch(() => {});
        throw error;
      }
      throw await this.undo(s, error, { before, committed, locked });
    }
  }

  /** After a failed step: put the device back and say exactly what state it is in. */
  private async undo(s: NetconfSession, error: unknown, at: { before?: XmlElement; committed: boolean; locked: boolean }): Promise<unknown> {
    const why = (error instanceof NetconfRpcError || error instanceof DeviceError ? error.message : String(error)).replace(`${this.name}: `, '');
    const notes: string[] = [];
    if (!s.closed && at.committed) notes.push(await this.revertOn(s));
    if (!s.closed && at.locked) {
      notes.push(await discardChanges(s).then(() => 'the candidate was discarded', (e: unknown) => `discard-changes failed (${errorText(e)})`));
      notes.push(await unlock(s, 'candidate').then(() => 'the lock was released', (e: unknown) => `unlock failed (${errorText(e)})`));
    } else if (at.locked) {
      notes.push('the session ended, so the device released the lock and reverted any unconfirmed commit');
    }
    const back = at.before ? await this.readBack(at.before) : undefined;
    if (back) notes.push(back.text);
    const kind = error instanceof DeviceError ? error.kind : error instanceof NetconfRpcError ? (error.has('lock-denied') || error.has('in-use') ? 'busy' : 'rejected') : 'rejected';
    this.logger?.warn({ device: this.name, kind, notes }, 'NETCONF change failed and was undone');
    if (!(error instanceof DeviceError) && !(error instanceof NetconfRpcError)) throw error;
    const then = notes.length ? ` Then: ${notes.join('; ')}.` : '';
    // Read back as before, or never committed (so running was never touched): the device holds what it held.
    const restored = back ? back.same : !at.committed;
    return new DeviceError(kind, `${this.name}: the change was not kept: ${why}.${then}`, at.locked || at.committed || kind !== 'busy', { restored });
  }

  /** Cancels this session's confirmed commit: `<cancel-commit>` on base:1.1, else by ending the session (RFC 6241 §8.4.1). */
  private async revertOn(s: NetconfSession): Promise<string> {
    if (s.framing === '1.1' && s.has(CAP.confirmed11)) {
      return cancelCommit(s, this.name).then(() => 'the confirmed commit was cancelled', (e: unknown) => `cancel-commit failed (${errorText(e)})`);
    }
    await s.close();
    return 'the session was closed (no <cancel-commit> on base:1.0), so the device reverted the confirmed commit';
  }

  /** Reads running (on a fresh session when needed) and compares it with `before`. */
  private async readBack(before: XmlElement): Promise<{ same: boolean; text: string }> {
    try {
      const now = await getConfig(await this.open(), 'running');
      if (sameConfig(before, now)) return { same: true, text: 'running was read back and matches the configuration before the change' };
      return { same: false, text: `RUNNING DIFFERS from before the change: ${configDifference(before, now).join('; ')}` };
    } catch (error) {
      return { same: false, text: `running could not be read back (${errorText(error)}): check the device` };
    }
  }

  /**
   * A pending commit whose time is up, or whose session ended, has been reverted by the device:
   * clear it and say how. Undefined when nothing was pending or it is still in time.
   */
  private async settleExpired(): Promise<{ note: string; was: PendingCommit } | undefined> {
    const p = this.pending;
    if (!p || (!p.session.closed && Date.now() < p.deadline)) return undefined;
    this.pending = undefined;
    if (p.session.closed) return { was: p, note: 'the session that made the change ended, so the device reverted it (RFC 6241 §8.4.1)' };
    // Cancel in case our clock ran ahead of the device's; an error means nothing was pending any more.
    if (p.session.framing === '1.1' && p.session.has(CAP.confirmed11)) await cancelCommit(p.session, this.name).catch(() => {});
    await discardChanges(p.session).catch(() => {});
    await unlock(p.session, 'candidate').catch(() => {});
    this.logger?.info({ device: this.name }, 'NETCONF confirmed commit timed out');
    return { was: p, note: `the confirm-timeout of ${p.timeoutS} s ran out, so the device reverted the change by itself` };
  }

  /** Keeps the provisional change: the confirming `<commit>` on the same session, then a read-back. */
  async confirm(): Promise<string> {
    const expired = await this.settleExpired();
    if (expired) throw new DeviceError('rejected', `${this.name}: too late to confirm: ${expired.note}; ${(await this.readBack(expired.was.before)).text}`, true);
    const p = this.pending;
    if (!p) throw new DeviceError('rejected', `${this.name}: no confirmed commit is waiting for a decision`);
    try {
      await commit(p.session);
    } catch (error) {
      this.pending = undefined;
      throw await this.undo(p.session, error, { before: p.before, committed: true, locked: true });
    }
    this.pending = undefined;
    let missing: string[];
    try {
      missing = missingFrom(p.fragment, await getConfig(p.session, 'running'));
    } finally {
      await unlock(p.session, 'candidate').catch(() => {});
    }
    if (missing.length) throw new DeviceError('rejected', `${this.name}: confirmed, but running no longer holds the change: ${missing.join('; ')}`, true);
    this.logger?.info({ device: this.name }, 'NETCONF confirmed commit confirmed');
    return `${this.name}: confirmed: the change is permanent; running was read back and holds the approved <config>.`;
  }

  /** Reverts the provisional change now, then reads running back and compares it with before the change. */
  async cancel(): Promise<string> {
    const expired = await this.settleExpired();
    const p = expired?.was ?? this.pending;
    if (!p) throw new DeviceError('rejected', `${this.name}: no confirmed commit is waiting for a decision`);
    this.pending = undefined;
    const note = expired ? expired.note : await this.revertOn(p.session);
    if (!p.session.closed) {
      await discardChanges(p.session).catch(() => {});
      await unlock(p.session, 'candidate').catch(() => {});
    }
    const back = await this.readBack(p.before);
    if (!back.same) throw new DeviceError('rejected', `${this.name}: ${note}; ${back.text}`, true);
    this.logger?.info({ device: this.name, expired: Boolean(expired) }, 'NETCONF confirmed commit cancelled');
    return `${this.name}: ${expired ? 'nothing left to cancel' : 'cancelled'}: ${note}; ${back.text}.`;
  }

  /** Cuts the session as a network failure would (tests, `--reconnect`); the device reverts a pending change. */
  drop(): void {
    this.session?.abort();
  }

  /** Ends the session; a change still waiting for its decision is reverted by the device. */
  async close(): Promise<void> {
    this.pending = undefined;
    await this.session?.close();
    this.session = undefined;
  }
}
