import type { SettingSource } from '../../src/config/setting-sources';
/**
 * The one interface the renderer uses to reach the product. The tray implements it
 * over typed IPC (electron/preload), the headless relay's read-only /ui over HTTP.
 * Shapes come from the relay's own zod schemas; nothing here is written twice.
 */
import type { PublicIncident, TimelineEntry } from '../../src/core/incidents/model';
import type { DeepHealth } from '../../src/relay/health-checks';
import type { StreamedEvent } from '../../src/core/events/relay-events';
import type { IncidentAction, IncidentActionOutcome } from '../../src/core/incidents/incident-handling';

export type IncidentSummary = PublicIncident;
export type IncidentDetail = PublicIncident & { timeline: TimelineEntry[] };

/** Live events, as the relay's bus and its `/events` stream name them (src/events/relay-events.ts). */
export type UiEvent =
  /** `next_cursor`: the relay holds finished incidents older than these (`listOlder` pages them). */
  { type: 'snapshot'; incidents: IncidentSummary[]; next_cursor?: string | null } | StreamedEvent;

export interface ArtifactGroupView {
  alert_def_id: string;
  title: string;
  valid: boolean;
  /** Alert variables the RAW needs, with an example value where the FS gives one. */
  variables: { name: string; required: boolean; example?: string }[];
}

export interface DirectPromptInput {
  alert_def_id: string;
  device: string;
  mode: 'strict' | 'hybrid';
  kb_query_mode?: 'quick' | 'standard' | 'deep';
  /** Fixes the prompt's HEADED-… incident id (default: made from the current time). */
  incident_id?: string;
  /** Alert variables: neighbor_ip, vrf_name, neighbor_as … */
  vars: Record<string, string>;
}

/** A person's confirm of a provisional change: its outcome in words, or why nothing changed. */
export type ConfirmOutcome = { status: 'confirmed'; outcome: string } | { status: 'refused'; message: string };

/** An approver lets changes reach a quarantined device again: done, or why not. */
export type ClearOutcome = { status: 'cleared'; device: string } | { status: 'refused'; message: string };

export type DecideOutcome =
  /** `standing`: under the change policy, "approved: 2 of 2". */
  | { status: 'accepted'; standing?: string }
  /** Counted toward the change policy's requirement, not reached yet: the request stays pending. */
  | { status: 'recorded'; message: string }
  | { status: 'already_decided'; by: string; channel: string; at: string; decision: string }
  | { status: 'not_awaiting'; state: string }
  | { status: 'unknown_incident' }
  /** The decision was for a request that is no longer the pending one (a stale window): nothing changed. */
  | { status: 'stale_request'; request_id: string; pending_request_id: string | null }
  /** The team relay refused it (a viewer's token, an unknown token, the relay unreachable): why, in words. */
  | { status: 'refused'; message: string };

export interface SettingField {
  name: string;
  /** As configured, for editing. */
  value: string | null;
  /** As it runs: `30m` rather than 1800000, the port actually served; null for secrets and unset values. */
  inForce: string | null;
  /** default, desktop default, environment, settings file, or generated (by the relay itself). */
  source: SettingSource;
  note?: string;
  secret: boolean;
  /** Secrets are write-only: the UI learns only whether one is set. */
  isSet: boolean;
  description: string;
}

/** `GET /incidents/:id/evidence?format=`: Markdown for people, the JSON bundle with its manifest for tools. */
export type EvidenceFormat = 'md' | 'json';
/** An evidence bundle as a file to save. */
export interface EvidenceFile {
  filename: string;
  contentType: string;
  body: string;
}

export interface Bridge {
  readonly kind: 'desktop' | 'browser';
  /** Approve/Deny: the tray, and a browser signed in as an approver; otherwise read-only. */
  readonly canDecide: boolean;
  listIncidents(): Promise<IncidentSummary[]>;
  /** Finished incidents older than the cursor, newest first (bridges that page the archive). */
  listOlder?(cursor: string): Promise<{ incidents: IncidentSummary[]; next_cursor: string | null }>;
  getIncident(incidentId: string): Promise<IncidentDetail>;
  /** Live updates; returns the unsubscribe function. */
  subscribe(onEvent: (event: UiEvent) => void): () => void;
  health(): Promise<DeepHealth>;
  sessionLog(incidentId: string): Promise<string | null>;
  /** The incident's evidence bundle (the relay's `GET /incidents/:id/evidence`), to save as a file. */
  exportEvidence(incidentId: string, format: EvidenceFormat): Promise<EvidenceFile>;
  listArtifactGroups(): Promise<ArtifactGroupView[]>;
  /** The exact headed-mode prompt, built by the relay's own code. */
  directPrompt(input: DirectPromptInput): Promise<string>;
  copyText(text: string): Promise<void>;
  /** `requestId`: the approval request the person is looking at; a decision is for that request only. */
  decide(incidentId: string, requestId: string, decision: 'APPROVED' | 'DENIED', reason?: string): Promise<DecideOutcome>;
  /** Keeps the provisional change `changeId` (the one the person sees) before its deadline. */
  confirmChange(incidentId: string, changeId: string): Promise<ConfirmOutcome>;
  /** Clears a quarantined device (`POST /devices/:name/clear`), approvers only: its name as the relay shows it. */
  clearDevice(device: string): Promise<ClearOutcome>;
  /** Acknowledge, assign, close or retry (`POST /incidents/:id/<kind>`), approvers only; answered in words. */
  incidentAction(incidentId: string, action: IncidentAction): Promise<IncidentActionOutcome>;
  getSettings(): Promise<SettingField[]>;
  /** Validated by the relay's config schema; answers one line per problem, changes nothing on error. */
  saveSettings(values: Record<string, string>): Promise<{ ok: true; restartNeeded: boolean } | { ok: false; problems: string[] }>;
  /**
   * Desktop only: the tray or a native notification asks to show an incident (its approval
   * panel). A request made before the renderer listens is delivered when it starts listening.
   * Returns the unsubscribe function.
   */
  onOpenIncident?(handler: (incidentId: string) => void): () => void;
}
