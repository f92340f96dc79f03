import type { ConfirmFn, DecideFn } from '../core/approvals/decision-command';
import type { OperatorDirectory } from '../core/operators/operators';
import { confirmRoutes } from './routes/confirm';
import { deviceRoutes } from './routes/devices';
import type { Quarantine } from '../core/quarantine/service';
import { decisionRoutes } from './routes/decision';
import { incidentActionRoutes } from './routes/incident-actions';
import type { IncidentHandling } from '../core/incidents/incident-handling';
import type { SettingSource } from '../config/setting-sources';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { AgentRuntime } from '../core/agent-runtime';
import type { RelayConfig } from '../config/schema';
import type { Incidents } from '../core/incidents/service';
import { bearerGuard, knownCredential, principalGuard } from './auth';
import type { RelayMetrics } from './metrics';
import { createAuthAttempts, installAuthAttempts } from './auth-attempts';
import { answerExpectations, clientErrorHandler, frameworkErrors, installClosingAnswer, installErrorHandler, installJsonParser } from './errors';
import { requestGuard } from './request-guards';
import { recordRoutes } from './route-errors';
import { answersAndErrors } from '../core/error-body';
import type { ProxySettings } from '../adapters/net/proxy';
import { httpDeviceProbe, type DeviceProbe, type EventStreamHealth, type MessagingHealth } from './health-checks';
import type { Intake } from './intake';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { faultAlertRoutes } from './routes/fault-alert';
import { alertSourceRoutes } from './routes/alert-sources';
import type { AlertSources } from './alert-sources';
import { mcpRoutes } from './routes/mcp';
import { healthRoutes } from './routes/health';
import { searchProxyRoutes } from './routes/search-proxy';
import { sessionsRoutes } from './routes/sessions';
import { evidenceRoutes } from './routes/evidence';
import { uiRoutes } from './routes/ui';
import { headedRoutes } from './routes/headed';
import { headedTerminalRoutes, type HeadedTerminalDeps } from './routes/headed-terminal';
import type { HeadedIntake } from './headed-intake';
import { createUiSession } from './ui-session';
import type { SignInLinks } from './sign-in';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock';
import type { ModelStatus } from '../core/delivery/model-check';
import type { Incident } from '../core/incidents/model';
import type { StoreCheck } from '../core/incidents/store';
import { join, resolve } from 'node:path';
import { createFaultKeyRules } from '../runbooks/fault-key';
import { fastifyTracing } from '../adapters/telemetry/sdk';

export interface AppDeps {
  /** Live approval channels and the approvers following the relay, for /health and /health/deep. */
  channels?: () => string[];
  approversOnline?: () => string[];
  config: RelayConfig;
  clock: Clock;
  /** The built renderer served at /ui; default `dist-renderer/` in the project folder. */
  uiDistDir?: string;
  operators?: OperatorDirectory;
  /** A laptop relay's one-time sign-in links for its local operator (already in `operators`). */
  signIn?: SignInLinks;
  /** The relay's one `decide` (the API, /ui, the headed terminal). */
  decide: DecideFn;
  /** A person's confirm of a provisional change (POST /incidents/:id/confirm); absent without device tools. */
  confirm?: ConfirmFn;
  /** Quarantined devices: on /health, cleared by an approver (POST /devices/:name/clear). */
  quarantine?: Pick<Quarantine, 'clear' | 'reasons' | 'list'>;
  settingSources?: Partial<Record<keyof RelayConfig, SettingSource>>;
  /** Where an incident's session log is written, for the UI's log view. */
  sessionLogPath: (incident: Incident) => string;
  logger: Logger;
  agent: AgentRuntime;
  incidents: Incidents;
  intake: Intake;
  /** What people do with an incident besides deciding: acknowledge, assign, close, retry. */
  handling: IncidentHandling;
  /** Batch alert sources (`POST /alerts/<name>`: Alertmanager) and what takes their alerts. */
  alertSources?: Pick<AlertSources, 'sources' | 'accept'>;
  /** Creates headed incidents (the prompt copiers, `simulate --direct`). */
  startHeaded: HeadedIntake;
  /** What the operator typed in the terminal UI, reported by the runtime's plugin. */
  /** `npm run headed`'s terminal: its own credential, never the tools token. */
  terminal: Omit<HeadedTerminalDeps, 'incidents' | 'decide'>;
  /** Why no run may start now (no configured model, runtime not as shipped), or null; asked before a headed run. */
  mayStartRun?: () => Promise<string | null>;
  messaging: () => MessagingHealth;
  eventStream?: () => EventStreamHealth;
  tools: { token: string; createServer: () => McpServer };
  /** Outbound proxy settings (HTTPS_PROXY …) for the search proxy's upstream. */
  proxy?: ProxySettings;
  /** Takes secret values out of error messages before they are answered. */
  scrub?: (text: string) => string;
  /** Standing warnings for /health; the model check for /health/deep. */
  warnings?: () => string[];
  model?: () => Promise<ModelStatus>;
  /** Why no run can start right now (no model, the runtime's files changed): /health is degraded while any holds. */
  blockers?: () => Promise<string[]>;
  /** Where incidents are kept, checked by /health/deep. */
  store?: () => Promise<StoreCheck>;
  /** The device tool server the relay started itself (DEVICE_INVENTORY); default: a probe of DEVICE_MCP_URL. */
  deviceProbe?: DeviceProbe;
  /** The device-tool guard: the agents' only way to the devices. */
  deviceTools: { createServer: () => McpServer };
  /** `GET /metrics` (Prometheus text), and the alert routes' 400 and 503 answers counted into it. */
  metrics?: RelayMetrics;
  /** Told of every 401 the relay answers (the audit stream); never the credential offered. */
  onAuthFailed?: (failure: { method: string; route: string; ip: string; code: string }) => void;
  /** Extra routes behind the same bearer as /sessions (the live event stream, the UI data). */
  protectedRoutes?: (scope: FastifyInstance) => Promise<void>;
}

/** The relay's HTTP surface as a fastify instance; `server.ts` decides where it listens. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  // Typed here rather than asserted: pino's Logger would otherwise set the instance's logger type.
  const loggerInstance: FastifyBaseLogger = deps.logger;
  const app = Fastify({
    loggerInstance,
    bodyLimit: config.MAX_BODY_BYTES,
    requestTimeout: 30_000,
    connectionTimeout: 60_000,
    keepAliveTimeout: 72_000,
    // installClosingAnswer answers 503 instead, in the documented shape.
    return503OnClosing: false,
    // X-Forwarded-For / -Proto only from RELAY_TRUSTED_PROXY: request.ip and request.protocol follow them.
    trustProxy: config.RELAY_TRUSTED_PROXY.length > 0 ? config.RELAY_TRUSTED_PROXY : false,
    frameworkErrors,
    clientErrorHandler,
    // Node answers a missing Host itself with an empty 400: the request guard answers it instead, in the documented shape.
    http: { requireHostHeader: false },
  });
  // First, so every route after it is traced (when OTEL_* turned tracing on).
  const tracing = fastifyTracing();
  if (tracing) await app.register(tracing);
  answerExpectations(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app, deps.scrub);
  recordRoutes(app);
  installJsonParser(app);
  installClosingAnswer(app);
  // Before routing, for every route: the wrong Host name, then another origin's writes and proxying.
  app.addHook('onRequest', requestGuard(config.RELAY_ALLOWED_HOSTS, { alwaysChecked: (path) => path.startsWith('/search-platform/') }));
  const secret = config.WEBHOOK_SECRET;
  const operators = deps.operators;
  // Browsers cannot send the bearer with EventSource or page loads: /ui trades it once for a cookie naming who.
  // A laptop relay without it still has sessions for its local operator, keyed by this process alone.
  const uiSession =
    secret || deps.signIn
      ? createUiSession({ ...(secret ? { secret } : { key: randomBytes(32).toString('base64url') }), clock: deps.clock, ...(operators ? { operators } : {}), ...(deps.signIn ? { signIn: deps.signIn } : {}) })
      : undefined;
  // Then, before any route's own check: wrong credentials are limited per source, on every route; a right one never is.
  const attempts = createAuthAttempts({
    clock: deps.clock,
    onLimited: (source, failures, windowSeconds) =>
      deps.logger.warn({ source, failures, window_s: windowSeconds }, `${failures} failed authentications from ${source}: its further wrong attempts are answered 429 for up to ${windowSeconds} s`),
  });
  installAuthAttempts(app, attempts, knownCredential({ secrets: [secret, deps.tools.token, deps.terminal.terminalSecret], operators, session: uiSession }));
  const onAuthFailed = deps.onAuthFailed;
  // The route's pattern, not the URL: a sign-in link or a search path may carry a token.
  if (onAuthFailed) app.addHook('onResponse', async (request, reply) => void (reply.statusCode === 401 && onAuthFailed({ method: request.method, route: request.routeOptions.url ?? '(no route)', ip: request.ip, code: 'unauthorized' })));

  // A person's own token opens the read-only checks (/health/deep) too.
  const readers = operators ? (token: string) => operators.byToken(token) !== undefined : undefined;
  await app.register(healthRoutes, {
    agent: deps.agent,
    agentName: config.AGENT_NAME,
    mode: config.REMEDIATION_MODE,
    // The relay-started server comes as a probe only: its address is in no setting, so /ui never shows it.
    ...(deps.deviceProbe ? { deviceProbe: deps.deviceProbe } : config.DEVICE_MCP_URL ? { deviceProbe: httpDeviceProbe(config.DEVICE_MCP_URL) } : {}),
    webhookSecret: secret,
    messaging: deps.messaging,
    eventStream: deps.eventStream,
    uiSession,
    ...(readers ? { readers } : {}),
    warnings: deps.warnings,
    model: deps.model,
    ...(deps.blockers ? { blockers: deps.blockers } : {}),
    store: deps.store,
    ...(deps.channels ? { channels: deps.channels } : {}),
    ...(deps.approversOnline ? { approversOnline: deps.approversOnline } : {}),
    ...(deps.quarantine ? { quarantine: deps.quarantine } : {}),
  });
  if (deps.metrics) await installMetrics(app, deps.metrics, bearerGuard(secret, 'WEBHOOK_SECRET', uiSession, readers));
  const faultKeys = createFaultKeyRules(join(resolve(config.RELAY_PROJECT_DIR), 'intelligence-artifacts'), deps.logger);
  await app.register(faultAlertRoutes, { intake: deps.intake, webhookSecret: secret, faultKeys });
  if (deps.alertSources) await app.register(alertSourceRoutes, { ...deps.alertSources, webhookSecret: secret });
  // Its own authentication: a person's token, approvers only (WEBHOOK_SECRET is Splunk's, not a person's).
  await app.register(decisionRoutes, { decide: deps.decide, ...(deps.operators ? { operators: deps.operators } : {}), ...(uiSession ? { session: uiSession } : {}) });
  await app.register(incidentActionRoutes, { handling: deps.handling, ...(deps.operators ? { operators: deps.operators } : {}), ...(uiSession ? { session: uiSession } : {}) });
  if (deps.quarantine) await app.register(deviceRoutes, { quarantine: deps.quarantine, ...(deps.operators ? { operators: deps.operators } : {}), ...(uiSession ? { session: uiSession } : {}) });
  await app.register(confirmRoutes, { ...(deps.confirm ? { confirm: deps.confirm } : {}), ...(deps.operators ? { operators: deps.operators } : {}), ...(uiSession ? { session: uiSession } : {}) });
  await app.register(async (scope) => {
    // Everyone listed reads; only WEBHOOK_SECRET and approvers create incidents or start runs.
    scope.addHook('onRequest', principalGuard({ secret, ...(uiSession ? { session: uiSession } : {}), ...(operators ? { operators } : {}) }));
    await scope.register(sessionsRoutes, { incidents: deps.incidents });
    await scope.register(evidenceRoutes, { incidents: deps.incidents, now: () => deps.clock.now(), ...(deps.scrub ? { scrub: deps.scrub } : {}) });
    await scope.register(headedRoutes, { startHeaded: deps.startHeaded, formats: faultKeys.formats, ...(deps.mayStartRun ? { mayStart: deps.mayStartRun } : {}) });
    const projectDir = resolve(config.RELAY_PROJECT_DIR);
    await scope.register(uiRoutes, {
      incidents: deps.incidents,
      startHeaded: deps.startHeaded,
      formats: faultKeys.formats,
      config,
      ...(deps.settingSources ? { settingSources: deps.settingSources } : {}),
      artifactsDir: join(projectDir, 'intelligence-artifacts'),
      distDir: deps.uiDistDir ?? join(projectDir, 'dist-renderer'),
      sessionLogPath: deps.sessionLogPath,
      session: uiSession,
      now: () => deps.clock.now(),
    });
    if (deps.protectedRoutes) await deps.protectedRoutes(scope);
  });
  // Two encapsulated scopes: each MCP endpoint has its own bearer hook.
  await app.register(mcpRoutes, { path: '/mcp', ...deps.tools });
  await app.register(mcpRoutes, { path: '/device-mcp', token: deps.tools.token, createServer: deps.deviceTools.createServer });
  await app.register(headedTerminalRoutes, { ...deps.terminal, ...(deps.mayStartRun ? { mayStart: deps.mayStartRun } : {}), incidents: deps.incidents, decide: deps.decide });
  await app.register(searchProxyRoutes, {
    upstreamUrl: config.SEARCH_UPSTREAM_URL,
    upstreamToken: config.SEARCH_UPSTREAM_TOKEN,
    timeoutMs: config.SEARCH_UPSTREAM_TIMEOUT_MS,
    bodyLimit: config.MAX_BODY_BYTES,
    webhookSecret: secret,
    proxy: deps.proxy,
  });
  return app;
}

/** Which alert source a route serves: the 202s are counted by the intake, the refusals only exist here. */
function alertSourceOf(url: string | undefined): string | undefined {
  if (url === '/fault-alert') return 'splunk';
  return url?.startsWith('/alerts/') ? url.slice('/alerts/'.length) : undefined;
}

/** The same guard as /health/deep: WEBHOOK_SECRET or a person's token, since the numbers describe the fleet's incidents. */
async function installMetrics(app: FastifyInstance, metrics: RelayMetrics, guard: ReturnType<typeof bearerGuard>): Promise<void> {
  app.addHook('onResponse', async (request, reply) => {
    const source = alertSourceOf(request.routeOptions.url);
    if (!source) return;
    // 400: a body the relay cannot read; 503: not durable, the sender retries. 401/429 are no alert received.
    if (reply.statusCode === 400 || reply.statusCode === 413 || reply.statusCode === 415) metrics.alertAnswered(source, 'invalid');
    else if (reply.statusCode === 503) metrics.alertAnswered(source, 'refused');
  });
  await app.register(async (scope) => {
    scope.addHook('onRequest', guard);
    scope.get('/metrics', { schema: { response: answersAndErrors } }, async (_request, reply) => reply.header('content-type', metrics.contentType).send(await metrics.render()));
  });
}
