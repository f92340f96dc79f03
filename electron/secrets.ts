import type { SafeStorage } from 'electron';
import type { Logger } from 'pino';
import { SECRET_KEYS } from '../src/config/schema';

export type SecretKey = (typeof SECRET_KEYS)[number];
export const isSecretKey = (name: string): name is SecretKey => (SECRET_KEYS as readonly string[]).includes(name);

/** The part of electron-store (or conf) the secret store writes to; both write atomically. */
export interface SecretBackend {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  delete(key: string): void;
}

export type SafeStorageApi = Pick<SafeStorage, 'isEncryptionAvailable' | 'encryptString' | 'decryptString' | 'getSelectedStorageBackend'>;

export interface SecretStore {
  /** Why secrets cannot be stored here, or null when they can. */
  unavailableReason(): string | null;
  isSet(name: SecretKey): boolean;
  /** Replaces, or with `null` removes, several secrets in one write. */
  write(changes: Partial<Record<SecretKey, string | null>>): void;
  /** Plain values, for the relay's configuration only: never for the renderer, never logged. */
  UNSAFE_readAll(): Partial<Record<SecretKey, string>>;
}

/**
 * Secrets encrypted with the OS keychain (safeStorage) before they reach the store file,
 * which the caller opens with mode 0600. On Linux without a keyring Electron would fall back
 * to a hard-coded key ("basic_text"): that is refused, so the user keeps them in the environment.
 */
export function createSecretStore(deps: { backend: SecretBackend; safeStorage: SafeStorageApi; platform: NodeJS.Platform; logger: Logger }): SecretStore {
  const { backend, safeStorage, logger } = deps;
  const KEY = 'encrypted';
  const stored = () => (backend.get(KEY) ?? {}) as Partial<Record<SecretKey, string>>;

  const unavailableReason = () => {
    if (!safeStorage.isEncryptionAvailable()) return 'the OS keychain is not available: set secrets as environment variables instead';
    if (deps.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text') {
      return 'no keyring (GNOME Keyring or KWallet) is running: set secrets as environment variables instead';
    }
    return null;
  };

  return {
    unavailableReason,
    isSet: (name) => typeof stored()[name] === 'string',
    write(changes) {
      const next = { ...stored() };
      const entries = Object.entries(changes) as [SecretKey, string | null][];
      if (entries.some(([, v]) => v !== null)) {
        const reason = unavailableReason();
        if (reason) throw new Error(`secrets cannot be stored: ${reason}`);
      }
      for (const [name, value] of entries) {
        if (value === null) delete next[name];
        else next[name] = safeStorage.encryptString(value).toString('base64');
      }
      backend.set(KEY, next);
    },
    UNSAFE_readAll() {
      const out: Partial<Record<SecretKey, string>> = {};
      for (const [name, encrypted] of Object.entries(stored()) as [SecretKey, string][]) {
        try {
          out[name] = safeStorage.decryptString(Buffer.from(encrypted, 'base64'));
        } catch {
          // A keychain reset makes old values unreadable; the relay then reports what is missing.
          logger.warn({ setting: name }, 'a stored secret could not be decrypted; set it again in Settings');
        }
      }
      return out;
    },
  };
}
