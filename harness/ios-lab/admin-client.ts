import type { FaultSpec } from '../../src/runbooks/fault-spec';
import { errorOf, errorText } from '../../src/core/error-body';

/** Talks to a running lab's `/admin/*` endpoints (the `npm run lab -- inject …` side). */
export interface LabAdminClient {
  inject(fault: Record<string, unknown> | FaultSpec): Promise<string>;
  clear(device?: string): Promise<string>;
  reset(): Promise<string>;
  devices(): Promise<{ hostname: string; mgmt_ip: string }[]>;
}

export class LabAdminError extends Error {
  override readonly name = 'LabAdminError';
}

export function createLabAdminClient(baseUrl: string, fetchImpl: typeof fetch = fetch): LabAdminClient {
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, unknown>> => {
    let res: Response;
    try {
      res = await fetchImpl(new URL(path, baseUrl), {
        method,
        ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
      });
    } catch (e) {
      throw new LabAdminError(`cannot reach the lab at ${baseUrl} (${errorText(e)}); start it with "npm run lab" or pass --url`);
    }
    const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) {
      throw new LabAdminError(errorOf(json)?.message ?? `lab answered ${res.status}`);
    }
    return json;
  };
  return {
    inject: async (fault) => String((await call('POST', '/admin/inject', fault)).message),
    clear: async (device) => String((await call('POST', '/admin/clear', device ? { device } : {})).message),
    reset: async () => String((await call('POST', '/admin/reset', {})).message),
    devices: async () => (await call('GET', '/admin/devices')).devices as { hostname: string; mgmt_ip: string }[],
  };
}
