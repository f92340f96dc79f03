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
  const parsed = configSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? 'configuration');
    return `${name}: ${issue.message}`;
  });
  throw new ConfigError(problems);
}
