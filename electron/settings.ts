import type { SettingField } from '../renderer/bridge/contract';
import { ConfigError, loadConfig } from '../src/config/load';
import { configSchema } from '../src/config/schema';
import { isSecretKey, type SecretKey, type SecretStore } from './secrets';
import { SETTING_DESCRIPTIONS, settingFields } from '../src/relay/routes/ui-settings';
import { settingSources } from '../src/config/setting-sources';

/** The part of electron-store the settings use: one record, so every save is one atomic write. */
export interface SettingsBackend {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

export type SaveResult = { ok: true; restartNeeded: boolean } | { ok: false; problems: string[] };

const KEYS = Object.keys(configSchema.shape);

/**
 * The tray's configuration: the relay's own environment variables, stored in the app's
 * settings file (secrets in the SecretStore). Precedence: tray defaults < environment <
 * saved settings, so what the user saved in the UI is what runs.
 */
export function createSettings(deps: {
  backend: SettingsBackend;
  secrets: SecretStore;
  baseEnv: Record<string, string | undefined>;
  /** The tray's own defaults within baseEnv, so Settings can say which values are the tray's and which the environment's. */
  desktopDefaults?: Record<string, string | undefined>;
  /** The port the running relay listens on, when it runs. */
  servedPort?: () => number | undefined;
}) {
  const { backend, secrets, baseEnv } = deps;
  const saved = () => (backend.get('values') ?? {}) as Record<string, string>;

  const env = (): Record<string, string | undefined> => ({ ...baseEnv, ...saved(), ...secrets.UNSAFE_readAll() });

  /** Where each setting in force comes from: tray default < environment < the settings file. */
  function sources() {
    const stored = Object.fromEntries(KEYS.filter((k) => isSecretKey(k) && secrets.isSet(k)).map((k) => [k, 'set']));
    const defaults = deps.desktopDefaults ?? {};
    const environment = Object.fromEntries(Object.entries(baseEnv).filter(([k, v]) => defaults[k] !== v));
    return settingSources([
      ['desktop default', defaults],
      ['environment', environment],
      ['settings file', { ...saved(), ...stored }],
    ]);
  }

  function fields(): SettingField[] {
    const values = saved();
    const sourceMap = sources();
    let config;
    try {
      config = loadConfig(env());
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
    }
    const port = deps.servedPort?.();
    if (config) return settingFields(config, { sources: sourceMap, ...(port !== undefined ? { servedPort: port } : {}) });
    // Settings that do not load yet (being fixed): what is saved, without values in force.
    return KEYS.map((name) => {
      const secret = isSecretKey(name);
      return {
        name,
        value: secret ? null : (values[name] ?? baseEnv[name] ?? null),
        inForce: null,
        source: sourceMap[name as keyof typeof sourceMap] ?? 'default',
        secret,
        isSet: secret ? secrets.isSet(name) || Boolean(baseEnv[name]) : name in values || Boolean(baseEnv[name]),
        description: SETTING_DESCRIPTIONS[name as keyof typeof SETTING_DESCRIPTIONS] ?? '',
      };
    });
  }

  /** `values` holds changes only; an empty string returns the setting to its default. */
  function save(values: Record<string, string>): SaveResult {
    const problems = Object.keys(values)
      .filter((name) => !KEYS.includes(name))
      .map((name) => `${name}: not a setting of Fault Relay`);
    const secretChanges: Partial<Record<SecretKey, string | null>> = {};
    const nextSaved = { ...saved() };
    for (const [name, value] of Object.entries(values)) {
      if (!KEYS.includes(name)) continue;
      if (isSecretKey(name)) secretChanges[name] = value === '' ? null : value;
      else if (value === '') delete nextSaved[name];
      else nextSaved[name] = value;
    }
    const reason = Object.values(secretChanges).some((v) => v !== null) ? secrets.unavailableReason() : null;
    if (reason) problems.push(...Object.keys(secretChanges).map((name) => `${name}: ${reason}`));

    // The whole resulting configuration must load, exactly as the relay will load it.
    const current = secrets.UNSAFE_readAll();
    for (const [name, value] of Object.entries(secretChanges)) {
      if (value === null) delete current[name as SecretKey];
      else current[name as SecretKey] = value;
    }
    try {
      loadConfig({ ...baseEnv, ...nextSaved, ...current });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
    if (problems.length > 0) return { ok: false, problems };

    if (Object.keys(secretChanges).length > 0) secrets.write(secretChanges);
    backend.set('values', nextSaved);
    return { ok: true, restartNeeded: Object.keys(values).length > 0 };
  }

  return { env, fields, save, sources };
}

export type Settings = ReturnType<typeof createSettings>;
