import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { AgentRuntime } from '../../core/agent-runtime';
import { deepHealth, type DeviceProbe, type EventStreamHealth, type MessagingHealth } from '../health-checks';
import { bearerGuard } from '../auth';
import type { UiSession } from '../ui-session';
import type { ModelStatus } from '../../core/delivery/model-check';
import type { StoreCheck } from '../../core/incidents/store';
import type { QuarantineEntry } from '../../core/quarantine/entry';
import { answersAndErrors, errorBodySchema } from '../../core/error-body';

export interface HealthRouteOptions {
  agent: AgentRuntime;
  agentName: string;
  mode: string;
  /** The device tool server's reachability; never its address (see DeviceProbe). */
  deviceProbe?: DeviceProbe;
  webhookSecret?: string;
  messaging: () => MessagingHealth;
  eventStream?: () => EventStreamHealth;
  uiSession?: UiSession;
  /** Personal tokens (OPERATORS_FILE): the deep check is a read-only view too. */
  readers?: (token: string) => boolean;
  /** Standing configuration warnings (no model, unattended approve, no approval channel). */
  warnings?: () => string[];
  /** Why no run can start right now; each a named reason, and /health is `degraded` while any holds. */
  blockers?: () => Promise<string[]>;
  /** The runtime's configured model, asked afresh for /health/deep. */
  model?: () => Promise<ModelStatus>;
  store?: () => Promise<StoreCheck>;
  /** The approval channels a person can answer on right now (webex, desktop, api …). */
  channels?: () => string[];
  /** Approvers whose tray follows the relay right now (only with OPERATORS_FILE). */
  approversOnline?: () => string[];
  /** Quarantined devices: /health is degraded with a reason naming each. */
  quarantine?: { reasons(): string[]; list(): QuarantineEntry[] };
}

/** The deep check's report, 200 or 503 alike (what failed is in it, not an error body). */
const report = z.unknown();

export const healthRoutes: FastifyPluginAsync<HealthRouteOptions> = async (app, opts) => {
  // Open on purpose: load balancers and the tray poll it. It carries no secret.
  app.get('/health', { schema: { response: answersAndErrors } }, async () => {
    const blocked = [...((await opts.blockers?.()) ?? []), ...(opts.quarantine?.reasons() ?? [])];
    const quarantined = opts.quarantine?.list() ?? [];
    return {
      status: blocked.length > 0 ? 'degraded' : 'ok',
      ...(blocked.length > 0 ? { reasons: blocked } : {}),
      agent_url: opts.agent.url,
      agent: opts.agentName,
      mode: opts.mode,
      approval_channels: opts.channels?.() ?? [],
      warnings: opts.warnings?.() ?? [],
      ...(quarantined.length ? { quarantined_devices: quarantined.map(({ device, since, reason, incident_id }) => ({ device, since, reason, incident_id })) } : {}),
    };
  });

  app.register(async (deep) => {
    deep.addHook('onRequest', bearerGuard(opts.webhookSecret, 'WEBHOOK_SECRET', opts.uiSession, opts.readers));
    deep.get('/health/deep', { schema: { response: { 200: report, 503: report, '4xx': errorBodySchema, 500: errorBodySchema } } }, async (_request, reply) => {
      const result = await deepHealth({ agent: opts.agent, deviceProbe: opts.deviceProbe, messaging: opts.messaging, eventStream: opts.eventStream, model: opts.model, warnings: opts.warnings, store: opts.store, ...(opts.blockers ? { blockers: opts.blockers } : {}), ...(opts.quarantine ? { quarantined: () => opts.quarantine!.list() } : {}) });
      const presence = opts.approversOnline ? { approvers_online: opts.approversOnline() } : {};
      return reply.code(result.status === 'ok' ? 200 : 503).send({ ...result, approval_channels: opts.channels?.() ?? [], ...presence });
    });
  });
};
