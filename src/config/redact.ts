import { SECRET_KEYS, type RelayConfig } from './schema';

/** The configuration as it may be shown: secrets become `set`/`unset`, never values. */
export function describeConfig(config: RelayConfig): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  for (const key of SECRET_KEYS) out[key] = config[key] ? 'set' : 'unset';
  return out;
}
