import { configSchema, type RelayConfig } from './schema';

/** Where a setting's value in force came from, lowest precedence first. */
export const SETTING_SOURCES = ['default', 'desktop default', 'environment', 'settings file', 'generated'] as const;
export type SettingSource = (typeof SETTING_SOURCES)[number];

type Env = Record<string, string | undefined>;
const KEYS = Object.keys(configSchema.shape) as (keyof RelayConfig)[];

/** Each setting's source: the last layer that sets it (layers in precedence order), else its default. */
export function settingSources(layers: Array<[Exclude<SettingSource, 'default' | 'generated'>, Env]>): Partial<Record<keyof RelayConfig, SettingSource>> {
  const out: Partial<Record<keyof RelayConfig, SettingSource>> = {};
  for (const key of KEYS) {
    out[key] = 'default';
    for (const [source, env] of layers) if (env[key] !== undefined && env[key] !== '') out[key] = source;
  }
  return out;
}

const MS_SETTINGS = new Set<keyof RelayConfig>(['APPROVAL_TTL', 'APPROVAL_APPLY_WINDOW', 'DELIVERY_RETRY_MAX_MS', 'SEARCH_UPSTREAM_TIMEOUT_MS']);
const BYTE_SETTINGS = new Set<keyof RelayConfig>(['MAX_BODY_BYTES']);

/** 1800000 → 30m, 90000 → 90s: durations as a person writes them (and as the settings accept them). */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [['h', 3_600_000], ['m', 60_000], ['s', 1_000]] as const) if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

export function formatBytes(bytes: number): string {
  for (const [unit, size] of [['MiB', 1024 * 1024], ['KiB', 1024]] as const) if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  return `${bytes} bytes`;
}

/** The value in force, as a person reads it; null when unset. */
export function valueInForce(name: keyof RelayConfig, config: RelayConfig): string | null {
  const v = config[name] as unknown;
  if (v === undefined || v === null || v === '') return null;
  if (typeof v === 'number' && MS_SETTINGS.has(name)) return formatDuration(v);
  if (typeof v === 'number' && BYTE_SETTINGS.has(name)) return formatBytes(v);
  if (Array.isArray(v)) return v.length ? v.join(', ') : null;
  return String(v);
}
