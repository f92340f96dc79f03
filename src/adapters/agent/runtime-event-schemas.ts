import { z } from 'zod';

/**
 * The `properties` of the runtime events the live timeline reads (opencode 1.18.33, recorded in
 * `docs/opencode-runtime.md` §3). Only the fields used are named; the rest passes
 * through, so a newer runtime that adds fields keeps working.
 */

const sessionInfoSchema = z.looseObject({
  id: z.string(),
  parentID: z.string().optional(),
  /** Set on child sessions created by `task`: the subagent's name. */
  agent: z.string().optional(),
  title: z.string().optional(),
});

export const sessionCreatedSchema = z.looseObject({ info: sessionInfoSchema });

export const messageUpdatedSchema = z.looseObject({
  info: z.looseObject({
    id: z.string(),
    sessionID: z.string(),
    role: z.string(),
    agent: z.string().optional(),
  }),
});

export const toolStateSchema = z.looseObject({
  status: z.string(),
  input: z.record(z.string(), z.unknown()).optional(),
  output: z.string().optional(),
  error: z.string().optional(),
  title: z.string().optional(),
  /** `task` parts carry the child session here while running. */
  metadata: z.looseObject({ sessionId: z.string().optional() }).optional(),
});

export const partSchema = z.looseObject({
  id: z.string(),
  sessionID: z.string(),
  messageID: z.string(),
  type: z.string(),
  tool: z.string().optional(),
  callID: z.string().optional(),
  state: toolStateSchema.optional(),
  text: z.string().optional(),
  /** Parts the runtime writes itself (not the model's words). */
  synthetic: z.boolean().optional(),
  /** Text parts: `end` is set once the part is complete. User prompt parts have no time. */
  time: z.looseObject({ start: z.number().optional(), end: z.number().optional() }).optional(),
});
export type RuntimePart = z.infer<typeof partSchema>;

export const partUpdatedSchema = z.looseObject({ part: partSchema });

export const sessionStatusSchema = z.looseObject({
  sessionID: z.string(),
  status: z.looseObject({
    type: z.string(),
    attempt: z.number().optional(),
    message: z.string().optional(),
    /** Epoch ms of the next attempt. */
    next: z.number().optional(),
  }),
});

export const sessionIdleSchema = z.looseObject({ sessionID: z.string() });

export const runtimeErrorSchema = z.looseObject({
  name: z.string(),
  data: z.looseObject({ message: z.string().optional() }).optional(),
});

export const sessionErrorSchema = z.looseObject({
  /** Absent for errors that belong to no session; those are not the relay's concern. */
  sessionID: z.string().optional(),
  error: runtimeErrorSchema.optional(),
});
