import { request, type Dispatcher } from 'undici';
import type { Clock } from '../../../core/clock';
import { webApiAnswerSchema } from './schemas';

export class SlackApiError extends Error {
  override readonly name = 'SlackApiError';
  constructor(readonly method: string, readonly code: string) {
    super(`slack ${method}: ${code}`);
  }
}

/** At most this many waits per call: a Web API that keeps refusing is an outage, said once, not a loop. */
const MAX_RATE_LIMITED = 3;

/**
 * Slack's Web API (JSON POST, bearer). A 429 is waited out for its `Retry-After` seconds on the
 * injected clock and the call retried; `ok:false` is an error naming the method and Slack's code,
 * never the token.
 */
export function createSlackWebApi(opts: { apiUrl: string; clock: Clock; dispatcherFor?: (url: string) => Dispatcher | undefined }) {
  const base = opts.apiUrl.replace(/\/+$/, '');
  const wait = (ms: number) => new Promise<void>((resolve) => opts.clock.setTimeout(resolve, ms));

  return async function call(method: string, token: string, body: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    for (let limited = 0; ; limited++) {
      const url = `${base}/${method}`;
      // Through HTTPS_PROXY when one applies to Slack's host (the relay's other outbound calls do the same).
      const dispatcher = opts.dispatcherFor?.(url);
      const res = await request(url, {
        ...(dispatcher ? { dispatcher } : {}),
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(body),
      });
      if (res.statusCode === 429 && limited < MAX_RATE_LIMITED) {
        await res.body.dump();
        const seconds = Number(res.headers['retry-after'] ?? '1');
        await wait(1000 * (Number.isFinite(seconds) && seconds > 0 ? seconds : 1));
        continue;
      }
      if (res.statusCode >= 300) {
        await res.body.dump();
        throw new SlackApiError(method, `HTTP ${res.statusCode}`);
      }
      const answer = webApiAnswerSchema.parse(await res.body.json());
      if (!answer.ok) throw new SlackApiError(method, answer.error ?? 'not ok');
      return answer;
    }
  };
}
export type SlackWebApi = ReturnType<typeof createSlackWebApi>;
