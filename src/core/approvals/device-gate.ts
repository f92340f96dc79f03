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
import { memoryHeldRequests, type HeldRequest, type HeldRequests } from './held-requests';
import type { ApprovalRequestInput, RequestResult } from './types';
import { entries } from '../events/timeline-entries';

export interface DeviceGateDeps {
  incidents: Incidents;
  bus: Bus<RelayEvents>;
  clock: Clock;
  logger: Logger;
  /** The device's quarantine now (read from where every relay keeps them). */
  quarantined?(device: string): Promise<QuarantineEntry | undefined>;
  tellRoom(incidentId: string, markdown: string): void;
  /** Asks again, once the change it waited for is over. */
  ask(input: ApprovalRequestInput): Promise<RequestResult>;
  /** Where held requests outlive a restart (the data folder, the team's database); default memory. */
  store?: HeldRequests;
  /** A team relay resumes only its own incidents' held requests. */
  owns: Owns;
}

interface Held {
  input: ApprovalRequestInput;
  waitingFor: { incident_id: string; change_id: string };
}

/**
 * What the device itself allows before any card: a quarantined device gets no card (the run ends
 * escalated with the quarantine's reason, as the policy gate does), and a device with another
 * incident's change still provisional gets its request held, shown as waiting for that change, and
 * asked when that change is confirmed or rolled back.
 */
export function createDeviceGate(deps: DeviceGateDeps) {
  const { incidents, clock, logger } = deps;
  const store = deps.store ?? memoryHeldRequests();
  const { owns } = deps;
  const held = new Map<string, Held>();
  const forget = (incidentId: string) => {
    held.delete(incidentId);
    void store.remove(incidentId).catch((error: unknown) => logger.error({ incident_id: incidentId, err: error }, 'a held request could not be removed from the store; it is skipped at the next start'));
  };

  function escalate(incident: Incident, reason: string, device: string): RequestResult {
    const at = clock.now().toISOString();
    const summary = `Escalated: ${reason}. No card was posted and nothing was applied; an approver clears the device (POST /devices/${device}/clear, the tray or /ui) once it has been checked.`;
    incidents.record(incident.incident_id, entries.approvalQuarantined, summary, { device, reason });
    incidents.transition(incident.incident_id, 'escalate', () => ({ outcome: { kind: 'escalated', summary, at } }));
    logger.warn({ incident_id: incident.incident_id, device }, 'approval refused: the device is quarantined; no card posted');
    deps.tellRoom(incident.incident_id, `⛔ **${incident.incident_id}** on \`${device}\`: ${summary}`);
    return { status: 'escalated_quarantined', device, reason };
  }

  /** Another incident's change (alone or in a plan) still provisional on `device`, if any. */
  const pendingOn = (incident: Incident, device: string) => {
    for (const other of incidents.list()) {
      if (other.incident_id === incident.incident_id) continue;
      const change = [other.change, ...(other.plan_changes ?? [])].find((c) => c?.state === 'pending' && sameDevice(c.device, device));
      if (change) return { incident_id: other.incident_id, change };
    }
    return undefined;
  };
  /** The change a hold waits for, as its incident has it now. */
  const changeOf = (incidentId: string, changeId: string) => {
    const other = incidents.get(incidentId);
    return [other?.change, ...(other?.plan_changes ?? [])].find((c) => c?.change_id === changeId) ?? undefined;
  };

  /** A hold's change ended: quarantine-worthy means escalate now, whatever the store has caught up with; else ask. */
  async function resume(incidentId: string, h: Held): Promise<void> {
    held.delete(incidentId);
    // Out of the store only once it is asked or escalated: a restart in between asks it again.
    try {
      await resumeNow(incidentId, h);
    } finally {
      forget(incidentId);
    }
  }

  async function resumeNow(incidentId: string, h: Held): Promise<void> {
    const incident = incidents.get(incidentId);
    if (!incident || isTerminal(incident.state) || incident.state !== 'running') return;
    const first = changeOf(h.waitingFor.incident_id, h.waitingFor.change_id);
    const reason = first ? quarantineReason(h.waitingFor.incident_id, first) : undefined;
    if (reason) {
      escalate(incident, quarantineLine({ device: first!.device, since: first!.ended_at ?? clock.now().toISOString(), reason }), first!.device);
      return;
    }
    incidents.record(incidentId, entries.approvalUnheld, `${h.waitingFor.incident_id}'s change ${h.waitingFor.change_id}${first ? ` on ${first.device}` : ''} is over: this request is asked now`, { waiting_for_incident: h.waitingFor.incident_id, waiting_for_change: h.waitingFor.change_id });
    await deps.ask(h.input);
  }

  /** Asks a held request once the change it waits for is no longer pending. */
  const resumeIfOver = (id: string, h: Held) => {
    if (changeOf(h.waitingFor.incident_id, h.waitingFor.change_id)?.state === 'pending') return;
    void resume(id, h).catch((error: unknown) => logger.error({ incident_id: id, err: error }, 'a held approval request could not be asked'));
  };

  const offUpdated = deps.bus.subscribe('incident.updated', ({ incident }) => {
    for (const [id, h] of [...held]) {
      if (h.waitingFor.incident_id === incident.incident_id) resumeIfOver(id, h);
      else if (id === incident.incident_id && isTerminal(incident.state)) forget(id);
    }
  });

  return {
    /** Undefined: the request goes on to the policy and the channels. */
    async gate(incident: Incident, input: ApprovalRequestInput): Promise<RequestResult | undefined> {
      // A plan is held or escalated whole: one of its devices is enough.
      const devices = input.plan ? input.plan.map((e) => e.device) : [incident.device_hostname];
      for (const device of devices) {
        const q = await deps.quarantined?.(device);
        if (q) return escalate(incident, `${input.plan ? `the plan's device ${device}: ` : ''}${quarantineLine(q)}`, device);
      }
      const found = devices.map((d) => ({ device: d, busy: pendingOn(incident, d) })).find((x) => x.busy);
      if (!found?.busy) return undefined;
      const { device, busy } = found;
      const waitingFor = { incident_id: busy.incident_id, change_id: busy.change.change_id };
      // Durable before the tool answers: a restart after "held" must still ask it.
      const { preview, ...rest } = input;
      const kept: HeldRequest = { incident_id: incident.incident_id, input: { ...rest, ...(preview ? { preview } : {}) }, waiting_for: waitingFor, held_at: clock.now().toISOString() };
      await store.put(kept);
      held.set(incident.incident_id, { input, waitingFor });
      const message = `Held: ${device} has change ${waitingFor.change_id} of ${waitingFor.incident_id} provisional until ${busy.change.deadline}; this request is asked when that change is confirmed or rolled back`;
      incidents.record(incident.incident_id, entries.approvalHeld, message, { device, waiting_for_incident: waitingFor.incident_id, waiting_for_change: waitingFor.change_id, commands: input.commands });
      logger.info({ incident_id: incident.incident_id, device, waiting_for: waitingFor }, 'approval request held behind a provisional change');
      return {
        status: 'held',
        device,
        waiting_for: { ...waitingFor, deadline: busy.change.deadline },
        note: 'The relay asks the operators itself once that change is over (no need to call request_approval again): stop and wait for the HUMAN OPERATOR RESPONSE.',
      };
    },
    /** After a restart: the held requests kept, asked at once when the change they wait for ended meanwhile. */
    async recover(): Promise<void> {
      for (const h of await store.load()) {
        if (!owns(h.incident_id)) continue;
        const incident = incidents.get(h.incident_id);
        if (!incident || incident.state !== 'running') {
          forget(h.incident_id);
          continue;
        }
        const entry: Held = { input: h.input, waitingFor: h.waiting_for };
        held.set(h.incident_id, entry);
        logger.info({ incident_id: h.incident_id, waiting_for: h.waiting_for }, 'a held approval request is kept from before the restart');
        resumeIfOver(h.incident_id, entry);
      }
    },
    /** Which request of `incidentId` is held, and for what (the /ui and the tray read the timeline's `approval.held`). */
    heldFor: (incidentId: string) => held.get(incidentId)?.waitingFor,
    stop: () => offUpdated(),
  };
}
