import { createHash, randomBytes } from 'node:crypto';
import { linesSha256 } from '../../core/approvals/lines';
import { buildEvidenceBundle } from '../../core/incidents/evidence-bundle';
import { canonicalJson } from '../../core/incidents/evidence-manifest';
import type { Incident, TimelineEntry } from '../../core/incidents/model';
import { isAuditedEntry } from './audited-entries';
import { auditEventSchema, type AuditEvent, type AuditType } from './schema';
import { entries, isEntry } from '../../core/events/timeline-entries';

const SHA256 = /^[0-9a-f]{64}$/;
const str = (v: unknown, max = 200): string | null => (typeof v === 'string' && v !== '' ? v.slice(0, max) : null);
const hash = (v: unknown): string | null => (typeof v === 'string' && SHA256.test(v) ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The same timeline entry always gives the same id, so a resend or a second relay's copy is one event to the receiver. */
export const entryEventId = (incidentId: string, entry: TimelineEntry) =>
  createHash('sha256').update(`${incidentId}\n${canonicalJson(entry)}`).digest('hex').slice(0, 32);

type Facts = Partial<Pick<AuditEvent, 'device' | 'request_id' | 'lines_sha256' | 'actor' | 'channel' | 'outcome'>> & { type: AuditType; detail?: AuditEvent['detail'] };

/** The request an entry is about: the decision's own, else the open request's. */
function requestFacts(incident: Incident, entry: TimelineEntry) {
  const request = incident.approval_request;
  return {
    request_id: str(entry.request_id, 100) ?? str(incident.approval?.request_id, 100) ?? str(request?.request_id, 100),
    lines_sha256: hash(entry.lines_sha256) ?? hash(request?.lines_sha256),
    device: str(request?.device) ?? incident.device_hostname,
  };
}

/** Which entries are audit events, and what each says; null for every other entry. */
function factsOf(incident: Incident, entry: TimelineEntry): Facts | null {
  const data = entry as Record<string, unknown>;
  switch (entry.type) {
    case entries.approvalDecided.name:
      return { type: 'decision', ...requestFacts(incident, entry), actor: str(data.by), channel: str(data.channel, 100), outcome: str(data.decision, 100) };
    case entries.approvalExpired.name:
      return { type: 'decision', ...requestFacts(incident, entry), actor: 'relay', channel: 'ttl', outcome: 'EXPIRED' };
    case entries.approvalSkipped.name:
      return { type: 'decision', ...requestFacts(incident, entry), actor: 'relay', channel: 'unattended', outcome: `SKIPPED:${str(data.decision, 20) ?? ''}` };
    case entries.approvalVote.name:
      return { type: 'decision', ...requestFacts(incident, entry), actor: str(data.by), channel: str(data.channel, 100), outcome: 'vote', detail: { given: num(data.given), needed: num(data.needed) } };
    case entries.incidentAcknowledged.name:
      return { type: 'acknowledge', actor: str(data.by), channel: str(data.channel, 100), outcome: 'acknowledged' };
    case entries.deviceConfigApplied.name:
    case entries.deviceConfigFailed.name:
    case entries.deviceConfigInterrupted.name: {
      const lines = Array.isArray(data.commands) ? linesSha256((data.commands as unknown[]).map(String)) : null;
      const outcome = isEntry(entry, entries.deviceConfigApplied) ? 'applied' : isEntry(entry, entries.deviceConfigFailed) ? 'failed' : 'interrupted';
      return { type: 'apply', ...requestFacts(incident, entry), lines_sha256: lines ?? requestFacts(incident, entry).lines_sha256, device: str(data.device) ?? incident.device_hostname, actor: 'agent', outcome };
    }
    case entries.deviceChangeConfirmed.name:
    case entries.deviceChangeRolledBack.name:
      return {
        type: isEntry(entry, entries.deviceChangeConfirmed) ? 'confirm' : 'rollback',
        ...requestFacts(incident, entry),
        device: str(data.device) ?? incident.device_hostname,
        actor: str(data.by) ?? 'relay',
        outcome: str(data.state, 100),
        detail: { change_id: str(data.change_id, 100), reason: str(data.reason, 100) },
      };
    case entries.policyVerdict.name:
    case entries.policyEscalated.name:
    case entries.policyRechecked.name:
      return {
        type: 'policy.verdict',
        ...requestFacts(incident, entry),
        actor: 'relay',
        outcome: isEntry(entry, entries.policyVerdict) ? 'approve' : str(data.verdict, 100),
        detail: { rule: str(data.rule), policy_sha256: hash(data.policy_sha256), ...(isEntry(entry, entries.policyVerdict) ? { count: num(data.count) } : {}) },
      };
    case entries.stateChanged.name:
      return data.to === 'escalated' ? { type: 'escalation', actor: 'relay', outcome: 'escalated', detail: { from: str(data.from, 40) } } : null;
    case entries.evidenceExported.name:
      return { type: 'evidence.exported', actor: str(data.by), outcome: str(data.format, 20) };
    case entries.pageSent.name:
    case entries.pageFailed.name:
      return { type: 'escalation', actor: 'relay', outcome: isEntry(entry, entries.pageSent) ? 'paged' : 'page_failed', detail: { step: num(data.step) ?? str(data.step, 40), pager: str(data.pager, 40) } };
    default:
      return null;
  }
}

export interface DeriveInput {
  incident: Incident;
  entry: TimelineEntry;
  /** The incident's timeline up to and including `entry`: the bundle is made as it stood then. */
  timeline: readonly TimelineEntry[];
  relay: string;
  scrub?: (text: string) => string;
}

/** The audit event a timeline entry is, or null when it is none. */
export function auditEventOf(input: DeriveInput): AuditEvent | null {
  const { incident, entry } = input;
  const facts = isAuditedEntry(entry) ? factsOf(incident, entry) : null;
  if (!facts) return null;
  // An export names the exact bundle handed out; any other event the bundle as it stood at that moment.
  const evidence = hash(entry.sha256) ?? buildEvidenceBundle({ incident, timeline: input.timeline, now: new Date(entry.at), ...(input.scrub ? { scrub: input.scrub } : {}) }).manifest.content_sha256;
  return auditEventSchema.parse({
    id: entryEventId(incident.incident_id, entry),
    time: entry.at,
    relay: input.relay,
    incident_id: incident.incident_id,
    evidence_sha256: evidence,
    device: incident.device_hostname.slice(0, 200),
    request_id: null,
    lines_sha256: null,
    actor: null,
    channel: null,
    outcome: null,
    detail: {},
    ...facts,
  });
}

/** An event that is not an incident's (a failed authentication, a configuration change): ids are random. */
export function relayEvent(relay: string, at: Date, facts: Facts & { incident_id?: string | null; evidence_sha256?: string | null }): AuditEvent {
  return auditEventSchema.parse({
    id: randomBytes(16).toString('hex'),
    time: at.toISOString(),
    relay,
    incident_id: null,
    evidence_sha256: null,
    device: null,
    request_id: null,
    lines_sha256: null,
    actor: null,
    channel: null,
    outcome: null,
    detail: {},
    ...facts,
  });
}
