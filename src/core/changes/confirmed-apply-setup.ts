import type { Logger } from 'pino';
import type { DeviceTools } from './device-contract';
import { loadArtifactGroup } from '../../runbooks/load';
import type { ArtifactGroup } from '../../runbooks/validate';
import type { Clock } from '../clock';
import type { Incidents } from '../incidents/service';
import type { Owns } from '../incidents/ownership';
import type { ChangeRecord } from '../incidents/change';
import { createConfirmedApply } from './confirmed-apply';
import { capturedOnDevice, planPostCheck, type NoPostCheck, type PostCheckPlan } from './post-check';
import { findPlanDevices, type AddressBook, type FoundDevice } from '../../runbooks/plan-devices';
import { createPlanApply } from './plan-apply';
import { planChecks } from './plan-post-check';

export interface ConfirmedApplySetup {
  incidents: Incidents;
  upstream: DeviceTools;
  artifactsDir: string;
  /** CONFIRM_WITHIN_S: the confirm window when the RAW's repair step sets none. */
  defaultWithinS: number;
  clock: Clock;
  logger: Logger;
  /** Whether this relay acts on an incident's change (the cluster's answer; src/core/incidents/ownership.ts). */
  owns: Owns;
  tell?(incidentId: string, markdown: string): void;
  maxPaceS?: number;
  ended?(incidentId: string, change: ChangeRecord): Promise<void>;
  unlearned?(incidentId: string, change: ChangeRecord, why: string): Promise<void>;
  /** Every device's addresses (the inventory's): where a plan's other devices are found. */
  addressBook?: AddressBook;
  /** Resolves when the incidents' writes are durable (a write-behind store): a plan's changes are, device by device. */
  durable?(): Promise<void>;
}

/** What finding a RAW's plan devices reads of an alert or incident. */
type PlanAlert = { alert_def_id: string; alert_vars: Readonly<Record<string, string>>; device_hostname: string };

/** Confirmed apply over the incidents' own RAWs: their post-checks and confirm windows, each group read once. */
export function setUpConfirmedApply(opts: ConfirmedApplySetup) {
  const groups = new Map<string, Promise<ArtifactGroup>>();
  const group = (id: string) => {
    let p = groups.get(id);
    if (!p) {
      p = loadArtifactGroup(opts.artifactsDir, id);
      // A group that failed to load is read again next time (it may have been fixed meanwhile).
      p.catch(() => groups.delete(id));
      groups.set(id, p);
    }
    return p;
  };
  const plan = async (incidentId: string): Promise<PostCheckPlan | NoPostCheck> => {
    const incident = opts.incidents.get(incidentId);
    if (!incident) return { reason: `unknown incident ${incidentId}` };
    const g = await group(incident.alert_def_id);
    const vars = { ...incident.alert_vars, device_hostname: incident.device_hostname };
    return planPostCheck(g.raw, capturedOnDevice(g.raw, vars, opts.incidents.timeline(incidentId)));
  };
  /** The devices the incident's RAW lets a plan change besides its own, found from its alert and the inventory. */
  const planDevicesFor = async (alert: PlanAlert): Promise<FoundDevice[]> => {
    const g = await group(alert.alert_def_id);
    return findPlanDevices(g.raw, { ...alert.alert_vars, device_hostname: alert.device_hostname }, alert.device_hostname, opts.addressBook);
  };
  const planDevices = async (incidentId: string): Promise<FoundDevice[]> => {
    const incident = opts.incidents.get(incidentId);
    return incident ? planDevicesFor(incident) : [];
  };
  const supervisor = createConfirmedApply({ ...opts, plan });
  const plans = createPlanApply({
    ...opts,
    async checks(incidentId) {
      const incident = opts.incidents.get(incidentId);
      if (!incident) return { reason: `unknown incident ${incidentId}` };
      const g = await group(incident.alert_def_id);
      const vars = capturedOnDevice(g.raw, { ...incident.alert_vars, device_hostname: incident.device_hostname }, opts.incidents.timeline(incidentId));
      const roles = new Map((await planDevices(incidentId)).flatMap((f) => ('device' in f ? [[f.role, f.device] as const] : [])));
      return planChecks(g.raw, vars, { own: incident.device_hostname, roles });
    },
  });
  return {
    ...supervisor,
    planDevices,
    /** The same, for an alert before it is an incident: what its prompt names. */
    planDevicesFor,
    plans,
    /** A person's confirm: of the incident's plan when it has one (every device), else of its change. */
    confirmByPerson(incidentId: string, changeId: string, person: string) {
      if (!plans.has(incidentId)) return supervisor.confirmByPerson(incidentId, changeId, person);
      return plans.confirmByPerson(incidentId, changeId, person).then((r) => (r.ok ? { ok: true as const, change: opts.incidents.get(incidentId)!.plan_changes![0]! } : { ok: false as const, code: 'not_pending' as const, message: r.message }));
    },
    recover(): void {
      supervisor.recover();
      plans.recover();
    },
    stop(): void {
      supervisor.stop();
      plans.stop();
    },
    /** The repair step's confirm window, else the relay's setting. */
    async within(incidentId: string): Promise<number> {
      const p = await plan(incidentId).catch(() => undefined);
      return p && 'confirmWithinS' in p && p.confirmWithinS !== undefined ? p.confirmWithinS : opts.defaultWithinS;
    },
  };
}

export type ConfirmedApplyService = ReturnType<typeof setUpConfirmedApply>;
