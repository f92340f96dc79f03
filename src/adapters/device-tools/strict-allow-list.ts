import type { Logger } from 'pino';
import { loadArtifactGroup, rawReadOnlyCommands } from '../../runbooks/load';
import type { ArtifactGroup } from '../../runbooks/validate';
import type { Incidents } from '../../core/incidents/service';

/**
 * The read-only commands a strict run may use: the RAW's commands rendered with the
 * incident's own variables. Artifact groups are read once; they do not change during a run.
 */
export function createStrictAllowList(deps: { incidents: Incidents; artifactsDir: string; logger: Logger }) {
  const groups = new Map<string, Promise<ArtifactGroup | null>>();
  const group = (alertDefId: string) => {
    let p = groups.get(alertDefId);
    if (!p) {
      p = loadArtifactGroup(deps.artifactsDir, alertDefId).catch((error: unknown) => {
        deps.logger.warn({ alert_def_id: alertDefId, err: error }, 'no usable artifact group: strict mode allows no device commands');
        groups.delete(alertDefId); // a fixed group is picked up on the next call
        return null;
      });
      groups.set(alertDefId, p);
    }
    return p;
  };
  return async (incidentId: string): Promise<string[]> => {
    const incident = deps.incidents.get(incidentId);
    if (!incident) return [];
    const g = await group(incident.alert_def_id);
    if (!g) return [];
    return rawReadOnlyCommands(g.raw, { ...incident.alert_vars, device_hostname: incident.device_hostname });
  };
}
