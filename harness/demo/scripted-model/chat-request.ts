import { z } from 'zod';

/** What opencode sends to `POST /v1/chat/completions` (only the fields scripts look at). */
export const chatMessageSchema = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() })), z.null()]).optional(),
  tool_calls: z
    .array(z.looseObject({ id: z.string(), function: z.looseObject({ name: z.string(), arguments: z.string() }) }))
    .optional(),
  tool_call_id: z.string().optional(),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;

export const chatRequestSchema = z.looseObject({
  model: z.string(),
  stream: z.boolean().optional(),
  messages: z.array(chatMessageSchema),
  tools: z
    .array(z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string(), description: z.string().optional() }) }))
    .optional(),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** Plain text of a message, whichever content form it uses. */
export function textOf(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => c.text ?? '').join('');
  return '';
}

export function toolNames(request: ChatRequest): string[] {
  return (request.tools ?? []).map((t) => t.function.name);
}
