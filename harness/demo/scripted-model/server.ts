import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatRequestSchema, textOf, toolNames, type ChatRequest } from './chat-request';

/** One answer of the model. */
export type Step =
  | { text: string }
  | { toolCalls: { name: string; arguments: object | string; id?: string }[] }
  /** An HTTP error from the provider, e.g. 400 (not retried by opencode) or 500 (retried). */
  | { error: { status: number; message: string } };

/**
 * Decides each answer. A function sees every request (`index` counts all requests, title ones
 * included); a list is consumed one step per agent request (requests that offer tools), and
 * requests without tools (title generation) get a fixed title.
 */
export type Script = ((request: ChatRequest, ctx: { index: number }) => Step) | Step[];

export interface ScriptedModel {
  /** e.g. `http://127.0.0.1:PORT/v1`, the provider's `baseURL`. */
  baseURL: string;
  /** Every request body received so far, in order. */
  requests(): ChatRequest[];
  stop(): Promise<void>;
}

/**
 * Answers like a tool-calling model would: a tool result is acknowledged in text (so agent
 * loops end), otherwise a greeting. Good enough for runs that only need to finish.
 */
export const finishingScript = (request: ChatRequest): Step => {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { text: `TOOL_RESULT_SEEN ${textOf(last).slice(0, 80)}` };
  return { text: 'Hello from scripted model' };
};

export async function startScriptedModel(script: Script = finishingScript): Promise<ScriptedModel> {
  const received: ChatRequest[] = [];
  let nextStep = 0;

  const decide = (request: ChatRequest, index: number): Step => {
    if (typeof script === 'function') return script(request, { index });
    if (!request.tools?.length) return { text: 'Scripted title' };
    return script[nextStep++] ?? { text: 'scripted-model: script exhausted' };
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const parsed = chatRequestSchema.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    if (!parsed.success) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `scripted-model: bad request: ${parsed.error.message}` } }));
      return;
    }
    const request = parsed.data;
    const index = received.length;
    received.push(request);
    const step = decide(request, index);
    if ('error' in step) {
      res.writeHead(step.error.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: step.error.message, type: 'scripted_error' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const chunk of chunksFor(step, request, index)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    res.end('data: [DONE]\n\n');
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests: () => [...received],
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The streamed chunks of one answer, shaped as the OpenAI chat-completions stream. */
function chunksFor(step: { text: string } | { toolCalls: { name: string; arguments: object | string; id?: string }[] }, request: ChatRequest, index: number) {
  const base = { id: `chatcmpl-${index}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: request.model };
  const chunk = (delta: object, finish: string | null = null, usage?: object) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  });
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const out = [chunk({ role: 'assistant', content: '' })];

  if ('toolCalls' in step) {
    const offered = new Set(toolNames(request));
    const missing = step.toolCalls.filter((c) => !offered.has(c.name)).map((c) => c.name);
    // Calling a tool opencode did not offer would fail the run in a confusing way; say so instead.
    if (missing.length === 0) {
      step.toolCalls.forEach((call, i) => {
        const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
        out.push(
          chunk({ tool_calls: [{ index: i, id: call.id ?? `call_${index}_${i}`, type: 'function', function: { name: call.name, arguments: '' } }] }),
          chunk({ tool_calls: [{ index: i, function: { arguments: args } }] }),
        );
      });
      out.push(chunk({}, 'tool_calls', usage));
      return out;
    }
    step = { text: `scripted-model: tool(s) not offered: ${missing.join(', ')}` };
  }
  // Two deltas, so streaming consumers see more than one piece.
  const mid = Math.ceil(step.text.length / 2);
  for (const piece of [step.text.slice(0, mid), step.text.slice(mid)]) if (piece) out.push(chunk({ content: piece }));
  out.push(chunk({}, 'stop', usage));
  return out;
}
