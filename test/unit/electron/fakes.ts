import type { NotificationConstructorOptions } from 'electron';
import type { NotificationLike } from '../../../electron/notifications';
import Conf from 'conf';
import { tempDir } from '../../helpers/temp-dir';
import type { SafeStorageApi } from '../../../electron/secrets';

/**
 * The OS keychain is the one part that cannot run here: a reversible stand-in that, like the
 * real one, never leaves the plain text in what it returns.
 */
export function fakeSafeStorage(opts: { available?: boolean; backend?: ReturnType<SafeStorageApi['getSelectedStorageBackend']> } = {}): SafeStorageApi {
  const flip = (b: Buffer) => Buffer.from(b.map((x) => x ^ 0x5a));
  return {
    isEncryptionAvailable: () => opts.available ?? true,
    getSelectedStorageBackend: () => opts.backend ?? 'gnome_libsecret',
    encryptString: (plain) => Buffer.concat([Buffer.from('enc:'), flip(Buffer.from(plain, 'utf8'))]),
    decryptString: (encrypted) => flip(encrypted.subarray(4)).toString('utf8'),
  };
}

/** A real conf store (what electron-store is underneath) in a fresh folder, written with mode 0600. */
export function confStore(name: string, dir = tempDir('fault-relay-electron-')) {
  const conf = new Conf<Record<string, unknown>>({ cwd: dir, configName: name, projectName: 'fault-relay-test', configFileMode: 0o600, clearInvalidConfig: false });
  return { conf, dir, file: conf.path };
}

/** Electron's Notification as a recording fake: what was shown, and a way to click its buttons. */
export function fakeNotifications() {
  const shown: (NotificationConstructorOptions & { closed: boolean; fire(event: 'click' | 'action' | 'failed', index?: number): void })[] = [];
  class FakeNotification implements NotificationLike {
    private readonly listeners = new Map<string, ((...args: never[]) => void)[]>();
    private readonly record: (typeof shown)[number];
    constructor(options: NotificationConstructorOptions) {
      this.record = {
        ...options,
        closed: false,
        fire: (event, index = 0) => this.listeners.get(event)?.forEach((l) => (l as (...a: unknown[]) => void)({ actionIndex: index }, index)),
      };
    }
    on(event: string, listener: (...args: never[]) => void) {
      this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
      return this;
    }
    show() {
      shown.push(this.record);
    }
    close() {
      this.record.closed = true;
    }
  }
  return { shown, FakeNotification };
}
