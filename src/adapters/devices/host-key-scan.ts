import { Client } from 'ssh2';
import { DeviceError } from './errors';

/**
 * The host key a device presents, read without logging in (the connection is dropped as soon as the
 * key arrives). Used only by the explicit `trust` command, never to accept a key silently.
 */
export function scanHostKey(host: string, port: number, timeoutMs = 10_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let key: Buffer | undefined;
    client.on('error', (error: Error & { code?: string }) => {
      if (key) resolve(key);
      else reject(new DeviceError('unreachable', `${host}:${port}: ${error.code ?? error.message}`));
    });
    client.connect({
      host,
      port,
      username: 'host-key-scan',
      readyTimeout: timeoutMs,
      hostVerifier: (blob: Buffer) => {
        key = blob;
        return false;
      },
    });
  });
}
