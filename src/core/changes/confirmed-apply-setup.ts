import type { Logger } from 'pino';
import type { DeviceTools } from './device-contract';
import { loadArtifactGroup } from '../../runbooks/load';
import type { ArtifactGroup } from '../../runbooks/validate';
import type { Clock } from '../clock';
import type { Incidents } from '../incidents/service';
import type { ChangeRecord } from '../incidents/change';
import { createConfirmedApply } from './confirmed-apply';
import { capturedOnDevice, planPostCheck, type NoPostCheck, type PostCheckPlan } from './post-check';

export interface ConfirmedApplySetup {
  incidents: Incidents;
  upstream: DeviceTools;
  artifactsDir: string;
  /** CONFIRM_WITHIN_S: the confirm window when the RAW's repair step sets none. */
  defaultWithinS: number;
  clock: Clock;
  logger: Logger;
  owns?(incidentId: string): boolean;
  tell?(incidentId: string, markdown: string): void;
  maxPaceS?: number;
  ended?(incidentId: string, change: ChangeRecord): Promise<void>;
  unlearned?(incidentId: string, change: ChangeRecord, why: string): Promise<void>;
}

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
  const supervisor = createConfirmedApply({ ...opts, plan });
  return {
    ...supervisor,
    /** The repair step's confirm window, else the relay's setting. */
    async within(incidentId: string): Promise<number> {
      const p = await plan(incidentId).catch(() => undefined);
      return p && 'confirmWithinS' in p && p.confirmWithinS !== undefined ? p.confirmWithinS : opts.defaultWithinS;
    },
  };
}

export type ConfirmedApplyService = ReturnType<typeof setUpConfirmedApply>;
