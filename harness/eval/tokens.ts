import { request } from 'undici';
import { z } from 'zod';

export interface RuntimeEndpoint {
  url: string;
  username: string;
  password: string;
}

const tokensSchema = z.looseObject({ input: z.number().default(0), output: z.number().default(0), reasoning: z.number().default(0) });
const messagesSchema = z.array(z.looseObject({ info: z.looseObject({ role: z.string(), tokens: tokensSchema.optional() }) }));
const childrenSchema = z.array(z.looseObject({ id: z.string() }));

/**
 * Tokens the runtime recorded for a run: its session and every subagent session below it, summed
 * from each assistant message's info. `source: none` when the runtime reports none (or cannot be
 * asked), so the scorecard shows 0 as "not reported" rather than as free.
 */
export async function runTokens(endpoint: RuntimeEndpoint | undefined, sessionId: string | null): Promise<{ input: number; output: number; source: 'runtime' | 'none' }> {
  const none = { input: 0, output: 0, source: 'none' as const };
  if (!endpoint || !sessionId) return none;
  const auth = `Basic ${Buffer.from(`${endpoint.username}:${endpoint.password}`).toString('base64')}`;
  const get = async <T>(path: string, schema: z.ZodType<T>): Promise<T | undefined> => {
    const res = await request(`${endpoint.url}${path}`, { headers: { authorization: auth }, headersTimeout: 10_000, bodyTimeout: 30_000 });
    const body: unknown = await res.body.json().catch(() => undefined);
    return res.statusCode === 200 ? schema.safeParse(body).data : undefined;
  };
  try {
    let input = 0;
    let output = 0;
    let seen = false;
    const queue = [sessionId];
    // Bounded: a run has a handful of subagent sessions; this guards against a cycle in odd data.
    for (let n = 0; queue.length && n < 200; n++) {
      const id = queue.shift()!;
      for (const m of (await get(`/session/${encodeURIComponent(id)}/message`, messagesSchema)) ?? []) {
        if (m.info.role !== 'assistant' || !m.info.tokens) continue;
        seen = true;
        input += m.info.tokens.input;
        output += m.info.tokens.output + m.info.tokens.reasoning;
      }
      queue.push(...((await get(`/session/${encodeURIComponent(id)}/children`, childrenSchema)) ?? []).map((c) => c.id));
    }
    return seen && input + output > 0 ? { input, output, source: 'runtime' } : none;
  } catch {
    return none;
  }
}
