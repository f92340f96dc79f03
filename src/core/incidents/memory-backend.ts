import type { KeyValueBackend } from './store';

/** A Map behind the backend interface, for tests and throwaway relays. */
export function createMemoryBackend(): KeyValueBackend & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return {
    data,
    get: (key) => structuredClone(data.get(key)),
    set: (key, value) => void data.set(key, structuredClone(value)),
  };
}
