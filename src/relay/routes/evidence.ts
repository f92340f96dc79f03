import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { buildEvidenceBundle } from '../../core/incidents/evidence-bundle';
import { renderEvidenceMarkdown } from '../../core/incidents/evidence-markdown';
import type { Incidents } from '../../core/incidents/service';
import { HttpError } from '../errors';
import { principalOf } from '../auth';
import { entries } from '../../core/events/timeline-entries';
import { answersAndErrors } from '../../core/error-body';

export interface EvidenceRoutesOptions {
  incidents: Pick<Incidents, 'get' | 'loadTimeline' | 'record'>;
  /** The relay's secret scrubber: its own secrets never leave in a bundle. */
  scrub?: (text: string) => string;
  now: () => Date;
}

/** Markdown unless asked otherwise: the bundle is exported by a person, for a change record or a ticket. */
export const EVIDENCE_FORMATS = ['md', 'json'] as const;
export const DEFAULT_EVIDENCE_FORMAT = 'md';

/** File names carry the incident id only as the ids are made (letters, digits, - and _). */
const fileName = (incidentId: string, format: string) => `${incidentId.replace(/[^A-Za-z0-9_-]/g, '_')}-evidence.${format}`;

/**
 * `GET /incidents/:incident_id/evidence`: one incident as an evidence bundle. Mounted behind the
 * same guard as `/sessions/:incident_id` (a read: the shared secret, a person's token or the UI cookie).
 */
export const evidenceRoutes: FastifyPluginAsyncZod<EvidenceRoutesOptions> = async (app, opts) => {
  app.get(
    '/incidents/:incident_id/evidence',
    {
      schema: {
        params: z.object({ incident_id: z.string().min(1).max(64) }),
        querystring: z.object({ format: z.enum(EVIDENCE_FORMATS).default(DEFAULT_EVIDENCE_FORMAT) }),
        response: answersAndErrors,
      },
    },
    async (request, reply) => {
      const incident = opts.incidents.get(request.params.incident_id);
      if (!incident) throw new HttpError(404, 'not_found', `No incident ${request.params.incident_id}`);
      const timeline = await opts.incidents.loadTimeline(incident.incident_id);
      const bundle = buildEvidenceBundle({ incident, timeline, now: opts.now(), ...(opts.scrub ? { scrub: opts.scrub } : {}) });
      const { format } = request.query;
      // On the timeline (and so in the audit stream) with the hash of exactly this copy: a copy found later is matched to its trail.
      const principal = principalOf(request);
      const by = principal?.kind === 'operator' ? principal.operator.email : principal?.kind === 'secret' ? 'WEBHOOK_SECRET' : 'local';
      opts.incidents.record(incident.incident_id, entries.evidenceExported, `Evidence bundle exported (${format}) by ${by}: sha256 ${bundle.manifest.content_sha256.slice(0, 12)}`, { by, format, sha256: bundle.manifest.content_sha256 });
      reply
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', `attachment; filename="${fileName(incident.incident_id, format)}"`)
        .header('x-evidence-sha256', bundle.manifest.content_sha256);
      if (format === 'json') return reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(bundle, null, 2));
      return reply.header('content-type', 'text/markdown; charset=utf-8').send(renderEvidenceMarkdown(bundle));
    },
  );
};
