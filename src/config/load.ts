import { configSchema, type RelayConfig } from './schema';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/**
 * Reads the relay configuration from an environment map. Every problem is reported
 * at once, one line each, naming the variable; values are never echoed because
 * some of them are secrets.
 */
export function loadConfig(env: Record<string, string | undefined>): RelayConfig {
  const keys = Object.keys(configSchema.shape) as (keyof typeof configSchema.shape)[];
  const input: Record<string, string> = {};
  for (const key of keys) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  // Credentials in AGENT_URL become the runtime's credentials, so the URL shown on /health and in
  // logs never carries them; the separate variables win when both are set.
  const agentUrl = input.AGENT_URL ? splitUserinfo(input.AGENT_URL) : undefined;
  if (agentUrl) {
    input.AGENT_URL = agentUrl.url;
    if (agentUrl.username && !input.AGENT_SERVER_USERNAME) input.AGENT_SERVER_USERNAME = agentUrl.username;
    if (agentUrl.password && !input.AGENT_SERVER_PASSWORD) input.AGENT_SERVER_PASSWORD = agentUrl.password;
  }
  const parsed = configSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? 'configuration');
    return `${name}: ${issue.message}`;
  });
  throw new ConfigError(problems);
}

/** `http://user:pw@host/` → the URL without them, and them decoded. Unparseable URLs are left to the schema. */
export function splitUserinfo(raw: string): { url: string; username?: string; password?: string } {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { url: raw };
  }
  if (!u.username && !u.password) return { url: raw };
  const username = u.username ? decodeURIComponent(u.username) : undefined;
  const password = u.password ? decodeURIComponent(u.password) : undefined;
  u.username = '';
  u.password = '';
  return { url: u.toString().replace(/\/$/, raw.endsWith('/') ? '/' : ''), username, password };
}
