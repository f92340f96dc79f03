import { z } from 'zod';
import { define } from '../define';

/** The agents' messages to the operators, by their kind. */
const notify = z.looseObject({ kind: z.enum(['fault-received', 'step-progress', 'final']) });

/** An incident's life: its alert, its states, what people and relays did with it. */
export const incidentEntries = {
  alertReceived: define('alert.received', z.looseObject({ warnings: z.array(z.string()) }), 'alert'),
  alertRepeated: define('alert.repeated', z.looseObject({ occurrences: z.number() }), 'alert'),
  /** A team relay's repeats of this fault counted while it could not reach the database. */
  alertFolded: define('alert.folded', z.looseObject({ folded_incident_id: z.string(), occurrences: z.number() }), 'alert'),
  alertResolved: define('alert.resolved', z.looseObject({ source: z.string(), ref: z.unknown(), resolved_at: z.string().nullable() }), 'alert'),
  alertResolvedTold: define('alert.resolved.told', z.looseObject({ ref: z.unknown(), resolved_at: z.unknown() }), 'alert'),
  alertResolvedNotTold: define('alert.resolved.not_told', z.looseObject({ ref: z.unknown(), resolved_at: z.unknown() }), 'alert'),
  stateChanged: define('state.changed', z.looseObject({ from: z.string(), to: z.string() }), 'state'),
  incidentAcknowledged: define('incident.acknowledged', z.looseObject({ by: z.string(), channel: z.string() }), 'runtime'),
  incidentAssigned: define('incident.assigned', z.looseObject({ to: z.string(), to_email: z.string(), by: z.string() }), 'runtime'),
  incidentClosed: define('incident.closed', z.looseObject({ by: z.string(), reason: z.string() }), 'runtime'),
  incidentRetried: define('incident.retried', z.looseObject({ by: z.string(), incident_id: z.string() }), 'runtime'),
  incidentRetryOf: define('incident.retry_of', z.looseObject({ of: z.string(), by: z.string() }), 'runtime'),
  headedJoined: define('headed.joined', z.looseObject({}), 'runtime'),
  headedFrom: define('headed.from', z.looseObject({ from: z.string() }), 'runtime'),
  headedBound: define('headed.bound', z.looseObject({ session_id: z.string() }), 'runtime'),
  headedEnded: define('headed.ended', z.looseObject({ session_id: z.string() }), 'runtime'),
  operatorNotADecision: define('operator.not_a_decision', z.looseObject({}), 'runtime'),
  operatorIgnored: define('operator.ignored', z.looseObject({}), 'runtime'),
  notifyFaultReceived: define('notify.fault-received', notify, 'notify'),
  notifyStepProgress: define('notify.step-progress', notify, 'notify'),
  notifyFinal: define('notify.final', notify, 'notify'),
  outcomeReported: define('outcome.reported', z.looseObject({ outcome: z.string() }), 'outcome'),
  outcomeClaimsRemoved: define('outcome.claims_removed', z.looseObject({ removed: z.number() }), 'outcome'),
  roomError: define('room.error', z.looseObject({}), 'error'),
  evidenceExported: define('evidence.exported', z.looseObject({ by: z.string(), format: z.string(), sha256: z.string() }), 'runtime'),
  relayTakeover: define('relay.takeover', z.looseObject({ from_relay: z.string(), application: z.string().optional(), previous_session_id: z.string().nullable().optional() }), 'runtime'),
  storeWriteRefused: define('store.write_refused', z.looseObject({}), 'runtime'),
  desktopNotificationFailed: define('desktop.notification_failed', z.looseObject({}), 'runtime'),
  evalDecisionRefused: define('eval.decision_refused', z.looseObject({}), 'runtime'),
};
