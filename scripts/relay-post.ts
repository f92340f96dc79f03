import { request } from 'undici';
import type { Fail } from './cli';
import { errorOf, errorText } from '../src/core/error-body';

/**
 * A command-line tool's POST to the relay: JSON in, JSON out, and one clear line (then exit) for
 * every way it can go wrong: the relay not running, a wrong secret, or an answer other than `expected`.
 */
export function relayPoster(opts: { api: string; secret?: string; fail: Fail }) {
  const { api, secret, fail } = opts;
  return async function post(path: string, payload: unknown, expected: number | readonly number[]): Promise<Record<string, unknown>> {
    let res;
    try {
      res = await request(`${api}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(secret ? { authorization: `Bearer ${secret}` } : {}) },
        body: JSON.stringify(payload),
        headersTimeout: 30_000,
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      return fail(`relay not reachable at ${api} (${code ?? errorText(error)}); start it with npm run relay or the tray app`);
    }
    const text = await res.body.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text);
    } catch {
      /* not JSON: shown below */
    }
    if (res.statusCode === 401) fail(`relay at ${api} answered 401 unauthorized: pass --secret or set WEBHOOK_SECRET`);
    if (!(typeof expected === 'number' ? [expected] : expected).includes(res.statusCode)) {
      const err = errorOf(json);
      fail(`relay answered ${res.statusCode} ${err?.code ?? ''}: ${err?.message ?? text.slice(0, 200)}`);
    }
    return json;
  };
}
