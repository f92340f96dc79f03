import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { inboundAlertSchema } from '../../alert/schema';
import type { HeadedIntake } from '../headed-intake';
import { HttpError } from '../errors';

export const headedResponseSchema = z.object({
  incident_id: z.string(),
  device_hostname: z.string(),
  mode: z.enum(['strict', 'hybrid']),
  /** Paste this into opencode's terminal UI, addressed to the troubleshooter agent. */
  prompt: z.string(),
});
export type HeadedResponse = z.infer<typeof headedResponseSchema>;

/**
 * `POST /headed`: a Splunk-shaped alert body in, a headed incident and its prompt out. The
 * simulator's `--direct`, the tray's and the UI's prompt copiers all come through here, so
 * every headed run is an incident the gate knows before the operator pastes anything.
 */
export const headedRoutes: FastifyPluginAsyncZod<{ startHeaded: HeadedIntake; mayStart?: () => Promise<string | null> }> = async (app, opts) => {
  // A headed incident exists for its run: none is made while no run may start (no model, runtime not as shipped).
  const refuseWhenNoRun = async () => {
    const refused = await opts.mayStart?.();
    if (refused) throw new HttpError(503, 'runs_refused', `No run starts: ${refused}.`);
  };
  app.post(
    '/headed',
    { schema: { body: inboundAlertSchema, querystring: z.object({ mode: z.enum(['strict', 'hybrid']).optional() }) } },
    async (request, reply) => {
      await refuseWhenNoRun();
      const { incident, prompt } = opts.startHeaded(request.body, request.query.mode);
      return reply.code(201).send({ incident_id: incident.incident_id, device_hostname: incident.device_hostname, mode: incident.mode, prompt } satisfies HeadedResponse);
    },
  );

  app.post(
    '/headed/from/:incident_id',
    { schema: { params: z.object({ incident_id: z.string().min(1).max(64) }), querystring: z.object({ mode: z.enum(['strict', 'hybrid']).optional() }) } },
    async (request, reply) => {
      await refuseWhenNoRun();
      const made = opts.startHeaded.from(request.params.incident_id, request.query.mode);
      if (!made) throw new HttpError(404, 'not_found', `No incident ${request.params.incident_id}`);
      const { incident, prompt } = made;
      return reply.code(201).send({ incident_id: incident.incident_id, device_hostname: incident.device_hostname, mode: incident.mode, prompt } satisfies HeadedResponse);
    },
  );
};
