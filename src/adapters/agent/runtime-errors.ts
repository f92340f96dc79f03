import { AgentRuntimeError, type AgentErrorKind } from '../../core/agent-runtime';
import { errorText } from '../../core/error-body';

/**
 * Replaces every secret (and its basic-auth encodings) in a text. Error messages are built from
 * our own words plus the runtime's error body; the body should never echo credentials, but
 * this is the last line of defence before a message reaches logs or `/health/deep`.
 */
export function createRedactor(secrets: string[]): (text: string) => string {
  const needles = secrets.filter((s) => s.length >= 3);
  return (text) => {
    let out = text;
    for (const needle of needles) out = out.split(needle).join('[redacted]');
    return out;
  };
}

const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);
const timeoutCodes = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Happy-eyeballs connects fail with an AggregateError holding one error per address.
  const nested = (error as { errors?: unknown }).errors;
  if (Array.isArray(nested)) return nested.map(codeOf).find((c) => c !== undefined);
  return undefined;
}

export function kindOfTransportError(error: unknown): AgentErrorKind {
  const code = codeOf(error);
  if (code && timeoutCodes.has(code)) return 'timeout';
  if (code === 'UND_ERR_INVALID_ARG') return 'client';
  if (code && unreachableCodes.has(code)) return 'unreachable';
  return 'unreachable';
}

/** A transport failure (no HTTP answer) as an AgentRuntimeError. */
export function transportError(
  what: string,
  error: unknown,
  redact: (text: string) => string,
): AgentRuntimeError {
  const kind = kindOfTransportError(error);
  const code = codeOf(error);
  const detail = code ?? (errorText(error));
  const reason = kind === 'timeout' ? `timed out (${detail})` : `runtime unreachable (${detail})`;
  return new AgentRuntimeError(kind, redact(`agent runtime ${what}: ${reason}`));
}

export function kindOfStatus(status: number): AgentErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status === 408) return 'timeout';
  if (status === 429 || status >= 500) return 'server';
  return 'client';
}

/** The runtime answers errors as `{name, data:{message}}`; fall back to the raw text. */
function describeBody(body: string): string {
  if (!body) return '';
  try {
    const parsed = JSON.parse(body) as { name?: unknown; data?: { message?: unknown } };
    const message = parsed?.data?.message;
    if (typeof message === 'string') return typeof parsed.name === 'string' ? `${parsed.name}: ${message}` : message;
  } catch {
    // not JSON: use the text itself
  }
  return body.length > 300 ? `${body.slice(0, 300)}…` : body;
}

/** A non-2xx answer as an AgentRuntimeError. */
export function statusError(
  what: string,
  status: number,
  body: string,
  redact: (text: string) => string,
): AgentRuntimeError {
  const kind = kindOfStatus(status);
  const hint = kind === 'auth' ? 'check the runtime username and password' : describeBody(body);
  const message = `agent runtime ${what}: HTTP ${status}${hint ? ` (${hint})` : ''}`;
  return new AgentRuntimeError(kind, redact(message), status);
}
