import type { PlanView } from '../../src/core/approvals/plan-view';
import { Commands, Preview, Rollback } from './change-lines';

/**
 * A change plan grouped by device, as the relay grouped it (plan-view.ts): for each device its lines,
 * the relay's dry run on it and its rollback, under the plan's one request id and hash. Device names
 * arrive already checked against the inventory's name format.
 */
export function PlanGroups({ plan }: { plan: PlanView }) {
  return (
    <div className="plan" aria-label="Plan">
      <p className="dim small">
        One plan over {plan.devices.map((d) => d.device).join(', ')}: applied on every device or on none, confirmed or put back together.
      </p>
      {plan.devices.map((d, i) => (
        <section key={`${d.device}${i}`} className="plan-device" aria-label={`Plan device ${d.device}`}>
          <h4 className="mono">{`${i + 1}/${plan.devices.length} ${d.device}`}</h4>
          <Commands title={`Lines for ${d.device}`} lines={d.lines} />
          <Preview preview={d.preview} />
          <Rollback lines={d.rollback} title={`Rollback of ${d.device} (computed by the relay from the configuration before)`} />
        </section>
      ))}
    </div>
  );
}
