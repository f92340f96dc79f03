import { z } from 'zod';

/**
 * An incident's place in its trace, stored with the incident (W3C trace context): delivery, the
 * agents' tool calls, the approval wait and the change are its children, in this process or in
 * the relay that takes the incident over after a restart.
 */
export const storedTraceSchema = z.object({
  traceparent: z.string().regex(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/),
  tracestate: z.string().max(512).optional(),
});
export type StoredTrace = z.infer<typeof storedTraceSchema>;
