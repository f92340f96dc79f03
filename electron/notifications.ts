import { shortHash } from '../src/core/approvals/lines';
import { requestRequirementLine } from '../src/core/approvals/standing';
import { visibleLines } from '../src/core/approvals/visible-text';
import { quotedPlain } from '../src/core/approvals/inert-text';
import { previewShort } from '../src/runbooks/config-preview';
import { planShort, type PlanView } from '../src/core/approvals/plan-view';
import type { NotificationConstructorOptions } from 'electron';
import type { Logger } from 'pino';
import type { DecideOutcome } from '../renderer/bridge/contract';
import type { Bus } from '../src/core/events/bus';
import type { RelayEvents } from '../src/core/incidents/events';
import { isTerminal, type Decision } from '../src/core/incidents/model';
import type { DecisionCommand } from '../src/core/approvals/decision-command';
import { desktopDecision } from './desktop-decision';
import type { ApprovalRequest, PublicIncident } from '../src/core/incidents/model';
import { errorText } from '../src/core/error-body';
import { quarantineLine, type QuarantineEntry } from '../src/core/quarantine/entry';

/** The part of Electron's Notification this module uses; tests pass a fake class. */
export interface NotificationLike {
  on(event: 'action', listener: (details: { actionIndex: number }, actionIndex: number) => void): unknown;
  on(event: 'click', listener: () => void): unknown;
  /** Windows and macOS: the OS refused to show it (notifications off, no permission, focus assist). */
  on(event: 'failed', listener: (event: unknown, error: string) => void): unknown;
  show(): void;
  close(): void;
}
export type NotificationClass = new (options: NotificationConstructorOptions) => NotificationLike;

export interface NotifierDeps {
  Notification: NotificationClass;
  /** Action buttons work on macOS only; elsewhere a click opens the approval view. */
  supportsActions: boolean;
  bus: Bus<RelayEvents>;
  /** The relay's one decide() (in-process, at once) or the team relay's (over the network). */
  decide(command: DecisionCommand): DecideOutcome | Promise<DecideOutcome>;
  /** The OS user: who the timeline and the room will name. */
  user: string;
  openIncident(incidentId: string): void;
  /** Notifications are off or unsupported here (Electron's Notification.isSupported()). */
  isSupported?: () => boolean;
  /** Said where the operator will look (the incident timeline) when an approval could not be notified. */
  onNotificationFailed?(incidentId: string, message: string): void;
  /** The device's quarantine as the relay holds it now: every new notification about that device says so first. */
  quarantined?(device: string): QuarantineEntry | undefined;
  logger: Logger;
}

const ACTIONS: Decision[] = ['APPROVED', 'DENIED'];
const MAX_BODY_COMMANDS = 8;

/**
 * Every line shown verbatim, or none approvable here: what a person approves is what is applied. A
 * plan is never decided from a banner: its lines, previews and rollbacks are read per device in the window.
 */
const fitsInNotification = (request: ApprovalRequest, plan?: PlanView) => !plan && request.commands.length <= MAX_BODY_COMMANDS;

/** A plan in one short line ("plan over R1, R2: 5 lines"), its hash and request, then the agent's summary, quoted. */
const planBody = (request: ApprovalRequest, plan: PlanView) =>
  [`${planShort(plan)} (plan ${shortHash(request.lines_sha256)}, request ${request.request_id}): open the window to review each device's lines, preview and rollback before deciding.`, quotedPlain(request.summary)].join('\n');

/**
 * The lines first, escaped as the device receives them, then the hash and the request, and the
 * agent's summary last, quoted (`> `): a long summary cannot push the lines out of the banner, nor pass for them.
 */
function approvalBody(request: ApprovalRequest): string {
  // One short line of the dry run beside the hash ("+1 −1 lines"); the window shows the lines themselves.
  const policy = requestRequirementLine(request);
  const hash = `lines ${shortHash(request.lines_sha256)}, request ${request.request_id}; would change: ${previewShort(request.preview)}${policy ? `; policy ${policy}` : ''}`;
  const shown = visibleLines(request.commands);
  const unsafe = shown.warning !== null;
  if (!fitsInNotification(request) || unsafe) {
    return [`${request.commands.length} lines (${hash}): open the window to review them before deciding.`, ...(unsafe ? [shown.warning] : []), quotedPlain(request.summary)].join('\n');
  }
  return [...shown.lines.map((c) => `  ${c}`), `(${hash})`, quotedPlain(request.summary)].join('\n');
}

const OUTCOME_TITLE = { resolved: 'Resolved', escalated: 'Escalated', failed: 'Failed' } as const;

/**
 * Native notifications for what needs or ends a run: an approval request (with Approve /
 * Deny where the platform has buttons) and each terminal outcome. A decision made here goes
 * through the relay's one decide(), exactly like a Webex click.
 */
export function createNotifier(deps: NotifierDeps): { stop(): void } {
  const { bus, logger } = deps;
  // Held until decided: Electron drops the handlers of a notification that was garbage collected.
  const open = new Map<string, NotificationLike>();

  /** The relay's ⛔ line first, in its own words, for a device no configuration may reach. */
  const aboutDevice = (device: string, body: string) => {
    const held = deps.quarantined?.(device);
    return held ? `⛔ ${quarantineLine(held)}\n${body}` : body;
  };
  const show = (options: NotificationConstructorOptions, incidentId: string) => {
    const n = new deps.Notification(options);
    n.on('click', () => deps.openIncident(incidentId));
    n.show();
    return n;
  };

  function answer(incident: PublicIncident, result: DecideOutcome) {
    if (result.status === 'accepted') return; // approval.decided tells it, for every channel alike
    if (result.status === 'recorded') return show({ title: `${incident.incident_id}: approval counted`, body: result.message }, incident.incident_id);
    const body =
      result.status === 'already_decided'
        ? `Already ${result.decision.toLowerCase()} by ${result.by} via ${result.channel} at ${result.at}`
        : result.status === 'not_awaiting'
          ? `No longer waiting for a decision (${result.state})`
          : result.status === 'refused'
            ? result.message
            : result.status === 'stale_request'
              ? `That notification was for request ${result.request_id}, no longer pending: nothing changed`
              : 'The incident is no longer known to the relay';
    show({ title: `${incident.incident_id}: your decision was not applied`, body }, incident.incident_id);
  }

  /** An approval nobody was notified of is an approval nobody decides: the window opens on it instead. */
  function fallBackToWindow(id: string, why: string) {
    const message = `The desktop notification could not be shown (${why}): the approval is open in the Fault Relay window.`;
    logger.warn({ incident_id: id }, message);
    deps.onNotificationFailed?.(id, message);
    deps.openIncident(id);
  }

  function requested({ incident, request }: RelayEvents['approval.requested']) {
    const id = incident.incident_id;
    open.get(id)?.close();
    if (deps.isSupported && !deps.isSupported()) return fallBackToWindow(id, 'notifications are not supported or are turned off');
    const plan = incident.plan_view;
    const n = show(
      {
        title: `Approval needed: ${plan ? `plan over ${plan.devices.map((d) => d.device).join(', ')}` : request.device}`,
        subtitle: id,
        body: aboutDevice(request.device, plan ? planBody(request, plan) : approvalBody(request)),
        urgency: 'critical',
        timeoutType: 'never',
        ...(deps.supportsActions && fitsInNotification(request, plan) && visibleLines(request.commands).warning === null ? { actions: ACTIONS.map((d) => ({ type: 'button' as const, text: d === 'APPROVED' ? 'Approve' : 'Deny' })), closeButtonText: 'Later' } : {}),
      },
      id,
    );
    n.on('action', (details, legacyIndex) => {
      const decision = ACTIONS[details?.actionIndex ?? legacyIndex];
      if (!decision) return;
      logger.info({ incident_id: id, decision, by: deps.user }, 'decision from a desktop notification');
      // The request this notification showed, never whatever is pending by the time of the click.
      const outcome = deps.decide(desktopDecision(deps.user, id, request.request_id, decision));
      if (outcome instanceof Promise) void outcome.then((o) => answer(incident, o), (error: unknown) => answer(incident, { status: 'refused', message: errorText(error) }));
      else answer(incident, outcome);
    });
    n.on('failed', (_event, error) => fallBackToWindow(id, error || 'the system refused it'));
    open.set(id, n);
  }

  function decided({ incident, approval }: RelayEvents['approval.decided']) {
    const id = incident.incident_id;
    open.get(id)?.close();
    open.delete(id);
    // An expiry ends the incident: its outcome notification says it once.
    if (approval.decision !== 'APPROVED' && approval.decision !== 'DENIED') return;
    show({ title: `${approval.decision === 'APPROVED' ? 'Approved' : 'Denied'}: ${incident.device_hostname}`, subtitle: id, body: aboutDevice(incident.device_hostname, `by ${approval.by} via ${approval.channel}`) }, id);
  }

  function updated({ incident, previous_state }: RelayEvents['incident.updated']) {
    if (!isTerminal(incident.state) || isTerminal(previous_state)) return;
    open.get(incident.incident_id)?.close();
    open.delete(incident.incident_id);
    const kind = incident.state as keyof typeof OUTCOME_TITLE;
    show({ title: `${OUTCOME_TITLE[kind]}: ${incident.device_hostname}`, subtitle: incident.incident_id, body: aboutDevice(incident.device_hostname, incident.outcome ? quotedPlain(incident.outcome.summary) : incident.state) }, incident.incident_id);
  }

  const offs = [bus.subscribe('approval.requested', requested), bus.subscribe('approval.decided', decided), bus.subscribe('incident.updated', updated)];
  return {
    stop() {
      offs.forEach((off) => off());
      open.clear();
    },
  };
}
