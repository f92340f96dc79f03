import type { SettingSource } from '../../config/setting-sources';
import { readFile } from 'node:fs/promises';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AlertFormats } from '../../runbooks/alert-formats';
import { refuseBadFormats } from './headed';
import { z, ZodError } from 'zod';
import { inboundAlertSchema } from '../../adapters/alert-sources/schema';
import { promptToPaste, type HeadedIntake } from '../headed-intake';
import { buildSplunkAlert } from '../../adapters/alert-sources/sample';
import type { RelayConfig } from '../../config/schema';
import type { Incident } from '../../core/incidents/model';
import type { Incidents } from '../../core/incidents/service';
import { HttpError } from '../errors';
import type { Principal, UiSession } from '../ui-session';
import { principalOf } from '../auth';
import { artifactGroupViews } from './ui-artifacts';
import { directPromptInputSchema, type DirectPromptBody } from './ui-schemas';
import { settingFields } from './ui-settings';
import { readStaticFile, StaticPathError, UI_CSP } from './ui-static';
import { answersAndErrors } from '../../core/error-body';

export interface UiRoutesOptions {
  /** The formats of each alert definition's values (the runbook's): a headed prompt's values are held to them. */
  formats?: (alertDefId: string) => Promise<AlertFormats>;
  incidents: Pick<Incidents, 'get'>;
  /** Shown read-only in the settings view (secrets only as set / not set). */
  config: RelayConfig;
  /** Where each setting came from (environment, the tray's settings file…). */
  settingSources?: Partial<Record<keyof RelayConfig, SettingSource>>;
  /** `intelligence-artifacts/`: the prompt copier's alert definitions. */
  artifactsDir: string;
  /** The built renderer (`vite build`, default `dist-renderer/`). */
  distDir: string;
  /** Where an incident's session log is written: the session-log writer's `pathFor`. */
  sessionLogPath?: (incident: Incident) => string;
  /** With WEBHOOK_SECRET set: turns `/ui?token=` into the session cookie. */
  session?: UiSession;
  /** Clock for the HEADED- id when none is given; tests pin it. */
  now?: () => Date;
  startHeaded: HeadedIntake;
}

/** Sample fields a variable of the same name replaces; an empty value leaves the field out. */
const SAMPLE_FIELDS: Record<string, 'neighbor' | 'vrf' | 'neighborAs' | 'deviceIp'> = {
  neighbor_ip: 'neighbor',
  vrf_name: 'vrf',
  neighbor_as: 'neighborAs',
  device_ip: 'deviceIp',
};

/**
 * The alert the simulator would post for these inputs (`npm run simulate -- --direct` builds the
 * same), so the copied prompt and the printed one are the same text.
 */
export function alertForPrompt(input: DirectPromptBody, now: Date) {
  const sample: Parameters<typeof buildSplunkAlert>[0] = { alertDefId: input.alert_def_id, device: input.device, now };
  if (input.kb_query_mode) sample.kbQueryMode = input.kb_query_mode;
  for (const [name, key] of Object.entries(SAMPLE_FIELDS)) {
    const value = input.vars[name];
    if (value !== undefined && value.trim() !== '') sample[key] = value.trim();
  }
  const alert = buildSplunkAlert(sample);
  const result: Record<string, string> = { ...alert.result };
  for (const [name, value] of Object.entries(input.vars)) {
    if (value.trim() === '') {
      delete result[name];
      // The sample's log line would name the neighbor again (the relay reads key fields from _raw).
      if (name === 'neighbor_ip') delete result._raw;
    } else result[name] = value.trim();
  }
  return { ...alert, result };
}

const sendHtml = (reply: FastifyReply, body: Buffer) =>
  reply.header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-cache').header('content-security-policy', UI_CSP).send(body);

/**
 * The read-only UI of the headless relay: the built renderer at /ui/ and the data only it needs.
 * Mount it behind the same bearer as /sessions; approvals never go over HTTP.
 */
export const uiRoutes: FastifyPluginAsyncZod<UiRoutesOptions> = async (app, opts) => {
  const now = opts.now ?? (() => new Date());

  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
  });

  // `/ui?token=…` trades the secret for the cookie and drops it from the address at once.
  app.get('/ui', { schema: { querystring: z.looseObject({ token: z.string().optional() }), response: answersAndErrors } }, async (request, reply) => {
    // The cookie names who logged in: the shared secret, or the person whose own token this is.
    // The guard may have taken the token already (a sign-in link works once): its answer stands.
    const token = request.query.token;
    const principal = token !== undefined ? (principalOf(request) ?? opts.session?.login(token)) : undefined;
    if (token !== undefined && !principal && opts.session) {
      throw new HttpError(401, 'unauthorized', 'This sign-in link was used already, or the token is wrong: a sign-in link works once. Restart the relay for a new one, or use your personal token.');
    }
    if (principal && opts.session) {
      // https as the client sees it: the socket's TLS, or X-Forwarded-Proto from RELAY_TRUSTED_PROXY only.
      reply.header('set-cookie', opts.session.issueCookie(principal, { secure: request.protocol === 'https' }));
    }
    return reply.code(303).header('cache-control', 'no-store').redirect('/ui/');
  });

  const index = async (reply: FastifyReply) => {
    const file = await readStaticFile(opts.distDir, 'index.html');
    if (!file) throw new HttpError(503, 'ui_not_built', 'The UI is not built on this relay: run npm run build:renderer.');
    return sendHtml(reply, file.body);
  };
  app.get('/ui/', { schema: { response: answersAndErrors } }, async (_request, reply) => index(reply));

  // Who this browser is signed in as, so the page offers Approve/Deny only to an approver.
  app.get('/ui/api/me', { schema: { response: answersAndErrors } }, async (request) => {
    const who: Principal | undefined = principalOf(request) ?? opts.session?.fromCookie(request);
    if (who?.kind !== 'operator') return { signed_in: who !== undefined, can_decide: false };
    return { signed_in: true, name: who.operator.name, role: who.operator.role, can_decide: who.operator.role === 'approver' };
  });

  app.get('/ui/api/artifacts', { schema: { response: answersAndErrors } }, async () => artifactGroupViews(opts.artifactsDir));

  app.post('/ui/api/direct-prompt', { schema: { body: directPromptInputSchema, response: answersAndErrors } }, async (request) => {
    const body = request.body;
    try {
      if (body.incident_id) throw new HttpError(400, 'invalid_prompt_input', 'Headed incident ids are assigned by the relay: leave the incident id empty.', [{ path: 'incident_id', message: 'assigned by the relay' }]);
      const alert = inboundAlertSchema.parse(alertForPrompt(body, now()));
      await refuseBadFormats(alert, opts.formats, 'invalid_prompt_input');
      const started = await opts.startHeaded(alert, body.mode);
      return { prompt: promptToPaste(started), incident_id: started.incident.incident_id };
    } catch (error) {
      if (!(error instanceof ZodError)) throw error;
      const details = error.issues.map((i) => ({ path: i.path.join('.') || '(alert)', message: i.message }));
      throw new HttpError(400, 'invalid_prompt_input', `These inputs make no valid alert: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`, details);
    }
  });

  app.get(
    '/ui/api/sessions/:incident_id/log',
    { schema: { params: z.object({ incident_id: z.string().min(1).max(64) }), response: answersAndErrors } },
    async (request) => {
      const incident = opts.incidents.get(request.params.incident_id);
      if (!incident) throw new HttpError(404, 'not_found', `No incident ${request.params.incident_id}`);
      if (!opts.sessionLogPath) return { incident_id: incident.incident_id, markdown: null };
      try {
        return { incident_id: incident.incident_id, markdown: await readFile(opts.sessionLogPath(incident), 'utf8') };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { incident_id: incident.incident_id, markdown: null };
        throw error;
      }
    },
  );

  // The port in force is the one this request arrived on (INGEST_PORT may be 0: any free port).
  app.get('/ui/api/settings', { schema: { response: answersAndErrors } }, async (request) =>
    settingFields(opts.config, { ...(opts.settingSources ? { sources: opts.settingSources } : {}), ...(request.socket.localPort ? { servedPort: request.socket.localPort } : {}) }),
  );

  app.get('/ui/*', { schema: { response: answersAndErrors } }, async (request, reply) => {
    const rel = (request.params as { '*': string })['*'];
    if (rel === 'index.html') return index(reply);
    let file;
    try {
      file = await readStaticFile(opts.distDir, rel);
    } catch (error) {
      if (error instanceof StaticPathError) throw new HttpError(400, 'bad_path', 'That path is not part of the UI.');
      throw error;
    }
    if (!file) throw new HttpError(404, 'not_found', `No UI file ${rel}`);
    return reply.header('content-type', file.contentType).header('cache-control', file.cacheControl).send(file.body);
  });
};
