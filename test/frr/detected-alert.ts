import { expect } from 'vitest';
import { applyFrrFault, resetFrrLab } from '../../harness/frr-lab/faults';
import type { FrrLab } from '../../harness/frr-lab/lab';
import { startWatcher, type AlertEvent } from '../../harness/frr-lab/watcher';
import type { FaultSpec } from '../../src/runbooks/fault-spec';

/**
 * Builds the fault on the lab and resolves with the first alert the watcher posts of `alertDefId`
 * (and every alert it posted meanwhile); the lab is reset after, however it went.
 */
export async function detectedAlert(lab: FrrLab, fault: FaultSpec, alertDefId: string): Promise<{ alert: AlertEvent; all: AlertEvent[] }> {
  const all: AlertEvent[] = [];
  let seen = (_a: AlertEvent) => {};
  const first = new Promise<AlertEvent>((resolve) => (seen = resolve));
  const watcher = startWatcher({ routers: lab.routers, onAlert: (e) => (all.push(e), e.detection.alert_def_id === alertDefId && seen(e)) });
  try {
    expect(await applyFrrFault(lab, fault)).toBeUndefined();
    return { alert: await first, all };
  } finally {
    watcher.close();
    await resetFrrLab(lab);
  }
}
