import type { FastifyPluginAsync } from 'fastify';
import type { AgentRuntime } from '../../agent/types';
import { deepHealth, type EventStreamHealth, type MessagingHealth } from '../health-checks';
import { bearerGuard } from '../auth';
import type { UiSession } from '../ui-session';
import type { ModelStatus } from '../../agent/model-check';
import type { StoreCheck } from '../../incidents/store';

export interface HealthRouteOptions {
  agent: AgentRuntime;
  agentName: string;
  mode: string;
  deviceMcpUrl?: string;
  webhookSecret?: string;
  messaging: () => MessagingHealth;
  eventStream?: () => EventStreamHealth;
  uiSession?: UiSession;
  /** Personal tokens (OPERATORS_FILE): the deep check is a read-only view too. */
  readers?: (token: string) => boolean;
  /** Standing configuration warnings (no model, unattended approve, no approval channel). */
  warnings?: () => string[];
  /** The runtime's configured model, asked afresh for /health/deep. */
  model?: () => Promise<ModelStatus>;
  store?: () => Promise<StoreCheck>;
}

export const healthRoutes: FastifyPluginAsync<HealthRouteOptions> = async (app, opts) => {
  // Open on purpose: load balancers and the tray poll it. It carries no secret.
  app.get('/health', async () => ({ status: 'ok', agent_url: opts.agent.url, agent: opts.agentName, mode: opts.mode, warnings: opts.warnings?.() ?? [] }));

  app.register(async (deep) => {
    deep.addHook('onRequest', bearerGuard(opts.webhookSecret, 'WEBHOOK_SECRET', opts.uiSession, opts.readers));
    deep.get('/health/deep', async (_request, reply) => {
      const result = await deepHealth({ agent: opts.agent, deviceMcpUrl: opts.deviceMcpUrl, messaging: opts.messaging, eventStream: opts.eventStream, model: opts.model, warnings: opts.warnings, store: opts.store });
      return reply.code(result.status === 'ok' ? 200 : 503).send(result);
    });
  });
};
