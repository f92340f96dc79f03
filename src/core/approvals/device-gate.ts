import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { Bus } from '../events/bus';
import type { RelayEvents } from '../incidents/events';
import { isTerminal, type Incident } from '../incidents/model';
import type { Incidents } from '../incidents/service';
import type { Owns } from '../incidents/ownership';
import { quarantineLine, type QuarantineEntry } from '../quarantine/entry';
import { quarantineReason } from '../quarantine/service';
import { sameDevice } from './claim';
import { isQuarantineWait, memoryHeldRequests, type HeldRequests, type HeldWait, type QuarantineWait } from './held-requests';
import { escalateQuarantined, heldData, heldRecord, holdOnChangeText, holdOnQuarantineText, unheldText } from './held-words';
import type { ApprovalRequestInput, RequestResult } from './types';
import { entries } from '../events/timeline-entries';

export interface DeviceGateDeps {
  incidents: Incidents;
  bus: Bus<RelayEvents>;
  clock: Clock;
  logger: Logger;
  /** The device's quarantine now (read from where every relay keeps them). */
  quarantined?(device: string): Promise<QuarantineEntry | undefined>;
  /** Told when a person clears a quarantined device (here or, read back, on another relay). */
  onCleared?(fn: (entry: QuarantineEntry) => void): () => void;
  tellRoom(incidentId: string, markdown: string): void;
  /** Asks again, once what it waited for is over. */
  ask(input: ApprovalRequestInput): Promise<RequestResult>;
  /** Where held requests outlive a restart (the data folder, the team's database); default memory. */
  store?: HeldRequests;
  /** A team relay resumes only its own incidents' held requests. */
  owns: Owns;
}

interface Held {
  input: ApprovalRequestInput;
  waitingFor: HeldWait;
}

/** Another incident's change (alone or in a plan) still provisional on `device`, if any. */
function pendingOn(incidents: Incidents, incident: Incident, device: string) {
  for (const other of incidents.list()) {
    if (other.incident_id === incident.incident_id) continue;
    const change = [other.change, ...(other.plan_changes ?? [])].find((c) => c?.state === 'pending' && sameDevice(c.device, device));
    if (change) return { incident_id: other.incident_id, change };
  }
  return undefined;
}

/** The change a hold waits for, as its incident has it now. */
function changeOf(incidents: Incidents, incidentId: string, changeId: string) {
  const other = incidents.get(incidentId);
  return [other?.change, ...(other?.plan_changes ?? [])].find((c) => c?.change_id === changeId) ?? undefined;
}

const NOTE = (what: string) => `The relay asks the operators itself once ${what} (no need to call request_approval again): stop and wait for the HUMAN OPERATOR RESPONSE.`;

/**
 * What the device itself allows before any card. A device with another incident's change still
 * provisional gets its request held, shown as waiting for that change, and asked when that change is
 * confirmed or rolled back. A quarantined device holds a plan whole, shown as waiting for the device
 * to be cleared, and asked once a person clears it; one device's own request is escalated instead
 * (the run is about that very device, and a person must look at it first), as the policy gate does.
 */
export function createDeviceGate(deps: DeviceGateDeps) {
  const { incidents, clock, logger } = deps;
  const store = deps.store ?? memoryHeldRequests();
  const { owns } = deps;
  const held = new Map<string, Held>();
  const unstore = (incidentId: string) =>
    void store.remove(incidentId).catch((error: unknown) => logger.error({ incident_id: incidentId, err: error }, 'a held request could not be removed from the store; it is skipped at the next start'));
  const forget = (incidentId: string) => {
    held.delete(incidentId);
    unstore(incidentId);
  };

  /** Kept durably before the tool answers (a restart after "held" must still ask it), then recorded on the timeline. */
  async function hold(incident: Incident, input: ApprovalRequestInput, waitingFor: HeldWait, device: string, message: string): Promise<void> {
    await store.put(heldRecord(incident.incident_id, input, waitingFor, clock.now().toISOString()));
    held.set(incident.incident_id, { input, waitingFor });
    incidents.record(incident.incident_id, entries.approvalHeld, message, { device, ...heldData(waitingFor), commands: input.commands });
    logger.info({ incident_id: incident.incident_id, device, waiting_for: waitingFor }, 'approval request held');
  }

  /** `read`: the quarantine was read from the store, so a clear since then is looked for at once. */
  async function holdOnQuarantine(incident: Incident, input: ApprovalRequestInput, q: QuarantineWait, read: boolean): Promise<RequestResult> {
    await hold(incident, input, q, q.device, holdOnQuarantineText(q));
    // Cleared while it was being kept: asked now rather than never. (A quarantine known from a change's
    // own end may not be in the store yet: only its clear resumes it.)
    if (read) resumeIfOver(incident.incident_id);
    return { status: 'held', device: q.device, waiting_for: { quarantined: q.device, since: q.since, reason: q.reason }, note: NOTE(`${q.device} is cleared`) };
  }

  /** Whether what a hold waits for is over: the change no longer provisional, the device no longer quarantined. */
  async function over(w: HeldWait): Promise<boolean> {
    if (!isQuarantineWait(w)) return changeOf(incidents, w.incident_id, w.change_id)?.state !== 'pending';
    return !(await deps.quarantined?.(w.device));
  }

  /** Asks a held request once what it waits for is over; only once, however many signals say so. */
  function resumeIfOver(incidentId: string): void {
    const h = held.get(incidentId);
    if (!h) return;
    void (async () => {
      if (!(await over(h.waitingFor)) || held.get(incidentId) !== h) return;
      held.delete(incidentId);
      try {
        await resumeNow(incidentId, h);
      } finally {
        // Out of the store only once it is asked, escalated or held again: a restart in between asks it again.
        if (!held.has(incidentId)) unstore(incidentId);
      }
    })().catch((error: unknown) => logger.error({ incident_id: incidentId, err: error }, 'a held approval request could not be asked'));
  }

  /** What it waited for is over: a change that left its device quarantined escalates one device and holds a plan; else it is asked. */
  async function resumeNow(incidentId: string, h: Held): Promise<void> {
    const incident = incidents.get(incidentId);
    if (!incident || isTerminal(incident.state) || incident.state !== 'running') return;
    const w = h.waitingFor;
    const first = isQuarantineWait(w) ? undefined : changeOf(incidents, w.incident_id, w.change_id);
    // Whatever the quarantine store has caught up with: the change's own end says so.
    const reason = first && !isQuarantineWait(w) ? quarantineReason(w.incident_id, first) : undefined;
    if (first && reason) {
      const q = { device: first.device, since: first.ended_at ?? clock.now().toISOString(), reason };
      if (h.input.plan) await holdOnQuarantine(incident, h.input, q, false);
      else escalateQuarantined(deps, incident, quarantineLine(q), first.device);
      return;
    }
    incidents.record(incidentId, entries.approvalUnheld, unheldText(w, first?.device), heldData(w));
    await deps.ask(h.input);
  }

  const offUpdated = deps.bus.subscribe('incident.updated', ({ incident }) => {
    for (const [id, h] of [...held]) {
      if (!isQuarantineWait(h.waitingFor) && h.waitingFor.incident_id === incident.incident_id) resumeIfOver(id);
      else if (id === incident.incident_id && isTerminal(incident.state)) forget(id);
    }
  });
  const offCleared = deps.onCleared?.((entry) => {
    for (const [id, h] of [...held]) if (isQuarantineWait(h.waitingFor) && sameDevice(h.waitingFor.device, entry.device)) resumeIfOver(id);
  });

  return {
    /** Undefined: the request goes on to the policy and the channels. */
    async gate(incident: Incident, input: ApprovalRequestInput): Promise<RequestResult | undefined> {
      // A plan is held whole: one of its devices is enough.
      const devices = input.plan ? input.plan.map((e) => e.device) : [incident.device_hostname];
      for (const device of devices) {
        const q = await deps.quarantined?.(device);
        if (!q) continue;
        if (input.plan) return holdOnQuarantine(incident, input, { device: q.device, since: q.since, reason: q.reason }, true);
        return escalateQuarantined(deps, incident, quarantineLine(q), device);
      }
      const found = devices.map((d) => ({ device: d, busy: pendingOn(incidents, incident, d) })).find((x) => x.busy);
      if (!found?.busy) return undefined;
      const { device, busy } = found;
      const waitingFor = { incident_id: busy.incident_id, change_id: busy.change.change_id };
      await hold(incident, input, waitingFor, device, holdOnChangeText(device, waitingFor, busy.change.deadline));
      return { status: 'held', device, waiting_for: { ...waitingFor, deadline: busy.change.deadline }, note: NOTE('that change is over') };
    },
    /** After a restart: the held requests kept, asked at once when what they wait for ended meanwhile. */
    async recover(): Promise<void> {
      for (const h of await store.load()) {
        if (!owns(h.incident_id)) continue;
        const incident = incidents.get(h.incident_id);
        if (!incident || incident.state !== 'running') {
          forget(h.incident_id);
          continue;
        }
        held.set(h.incident_id, { input: h.input, waitingFor: h.waiting_for });
        logger.info({ incident_id: h.incident_id, waiting_for: h.waiting_for }, 'a held approval request is kept from before the restart');
        resumeIfOver(h.incident_id);
      }
    },
    /** What a request of `incidentId` is held for (the /ui and the tray read the timeline's `approval.held`). */
    heldFor: (incidentId: string) => held.get(incidentId)?.waitingFor,
    stop: () => {
      offUpdated();
      offCleared?.();
    },
  };
}
