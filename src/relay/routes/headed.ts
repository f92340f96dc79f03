import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import { normalizeAlert } from '../../adapters/alert-sources/normalize';
import { inboundAlertSchema, type InboundAlert } from '../../adapters/alert-sources/schema';
import { InvalidAlertError } from '../../adapters/alert-sources/splunk';
import { formatProblems, type AlertFormats } from '../../runbooks/alert-formats';
import type { HeadedIntake, HeadedStart } from '../headed-intake';
import { HttpError } from '../errors';
import { answersAndErrors } from '../../core/error-body';

export const headedResponseSchema = z.object({
  incident_id: z.string(),
  device_hostname: z.string(),
  mode: z.enum(['strict', 'hybrid']),
  /** Paste this into opencode's terminal UI, addressed to the troubleshooter agent. */
  prompt: z.string(),
  /** The fault already had an open incident: this is it, with its own run and approval (nothing new was made). */
  joined: z.boolean().optional(),
  /** A joined incident's agent session, when its run has one. */
  session_id: z.string().nullable().optional(),
});
export type HeadedResponse = z.infer<typeof headedResponseSchema>;

/**
 * A headed run's device changes get the relay's post-check too: its alert values are held to the
 * runbook's formats as Splunk's are, and a value that fails is refused (400, `code`) naming the field.
 */
export async function refuseBadFormats(alert: InboundAlert, formatsOf: ((alertDefId: string) => Promise<AlertFormats>) | undefined, code: string): Promise<void> {
  const formats = await formatsOf?.(alert.result.alert_def_id);
  if (!formats || formats.size === 0) return;
  const problems = formatProblems(normalizeAlert(alert).alert_vars, formats, (key) => `result.${key}`);
  if (problems.length > 0) throw new HttpError(400, code, new InvalidAlertError(problems).message, problems);
}

/**
 * `POST /headed`: a Splunk-shaped alert body in, a headed incident and its prompt out. The
 * simulator's `--direct`, the tray's and the UI's prompt copiers all come through here, so
 * every headed run is an incident the gate knows before the operator pastes anything.
 */
/** 201 with a new headed incident; 200 with the fault's open incident it joined. */
function answer(reply: FastifyReply, { incident, prompt, joined }: HeadedStart) {
  const body: HeadedResponse = { incident_id: incident.incident_id, device_hostname: incident.device_hostname, mode: incident.mode, prompt };
  return joined ? reply.code(200).send({ ...body, joined: true, session_id: incident.session_id }) : reply.code(201).send(body);
}

export const headedRoutes: FastifyPluginAsyncZod<{ startHeaded: HeadedIntake; formats?: (alertDefId: string) => Promise<AlertFormats>; mayStart?: () => Promise<string | null> }> = async (app, opts) => {
  // A headed incident exists for its run: none is made while no run may start (no model, runtime not as shipped).
  const refuseWhenNoRun = async () => {
    const refused = await opts.mayStart?.();
    if (refused) throw new HttpError(503, 'runs_refused', `No run starts: ${refused}.`);
  };
  app.post(
    '/headed',
    { schema: { body: inboundAlertSchema, querystring: z.object({ mode: z.enum(['strict', 'hybrid']).optional() }), response: answersAndErrors } },
    async (request, reply) => {
      await refuseBadFormats(request.body, opts.formats, 'invalid_alert');
      await refuseWhenNoRun();
      return answer(reply, await opts.startHeaded(request.body, request.query.mode));
    },
  );

  app.post(
    '/headed/from/:incident_id',
    { schema: { params: z.object({ incident_id: z.string().min(1).max(64) }), querystring: z.object({ mode: z.enum(['strict', 'hybrid']).optional() }), response: answersAndErrors } },
    async (request, reply) => {
      await refuseWhenNoRun();
      const made = opts.startHeaded.from(request.params.incident_id, request.query.mode);
      if (!made) throw new HttpError(404, 'not_found', `No incident ${request.params.incident_id}`);
      return answer(reply, made);
    },
  );
};
