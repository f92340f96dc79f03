import { readFile } from 'node:fs/promises';
import { Client, type ConnectConfig } from 'ssh2';
import { DeviceError } from './errors';
import type { DeviceEntry } from './inventory';
import { checkHostKey, fingerprint, keyType } from './known-hosts';
import { errorText } from '../../core/error-body';

/**
 * An authenticated SSH connection to a device, or a DeviceError saying why not (unreachable,
 * auth_failed, host_key_*: nothing was sent). One place for the host-key check and the credential
 * lookup, shared by the CLI session (a pty) and the NETCONF session (the `netconf` subsystem).
 */
export async function connectSsh(device: DeviceEntry, knownHostsPath: string, connectTimeoutMs = 10_000): Promise<Client> {
  const client = new Client();
  let verdict: { state: string; blob?: Buffer } = { state: 'pending' };
  const config: ConnectConfig = {
    host: device.host,
    port: device.port,
    username: device.username,
    readyTimeout: connectTimeoutMs,
    keepaliveInterval: 15_000,
    // The callback form: ssh2 waits for the file to be read before going on.
    hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
      void checkHostKey(knownHostsPath, device.host, device.port, key).then((v) => {
        verdict = { state: v, blob: key };
        verify(v === 'match');
      });
    },
  };
  const cred = device.credential;
  if ('agent' in cred) {
    if (!process.env.SSH_AUTH_SOCK) throw new DeviceError('auth_failed', `${device.name}: credential is the ssh-agent, but SSH_AUTH_SOCK is not set`);
    config.agent = process.env.SSH_AUTH_SOCK;
  } else if ('key_file' in cred) {
    try {
      config.privateKey = await readFile(cred.key_file);
    } catch (error) {
      throw new DeviceError('auth_failed', `${device.name}: cannot read key_file ${cred.key_file} (${(error as NodeJS.ErrnoException).code})`);
    }
    if (cred.passphrase_env) config.passphrase = process.env[cred.passphrase_env] ?? '';
  } else {
    const password = process.env[cred.password_env];
    if (password === undefined) throw new DeviceError('auth_failed', `${device.name}: the password variable ${cred.password_env} is not set`);
    config.password = password;
  }

  await new Promise<void>((resolve, reject) => {
    client.once('ready', () => {
      // One short line out, the output back: without this, Nagle and delayed ACKs add ~40 ms a command.
      client.setNoDelay(true);
      resolve();
    });
    // `on`, not `once`: a connect that timed out can report the socket's end as a second error (when a
    // stalled sshd wakes), and an error nobody listens to would end the whole server.
    client.on('error', (error: Error & { level?: string; code?: string }) => reject(connectError(device, knownHostsPath, error, verdict)));
    try {
      client.connect(config);
    } catch (error) {
      reject(new DeviceError('auth_failed', `${device.name}: ${errorText(error)}`));
    }
  });
  return client;
}

function connectError(device: DeviceEntry, knownHosts: string, error: Error & { level?: string; code?: string }, verdict: { state: string; blob?: Buffer }): DeviceError {
  const where = `${device.name} (${device.host}:${device.port})`;
  const trust = `if the key is right, run: npm run devices -- trust ${device.name}`;
  if (verdict.state === 'unknown' && verdict.blob) {
    return new DeviceError('host_key_unknown', `${where}: host key ${keyType(verdict.blob)} ${fingerprint(verdict.blob)} is not in ${knownHosts}; compare it with the device's, then ${trust.replace('if the key is right, run: ', '')}`);
  }
  if (verdict.state === 'changed' && verdict.blob) {
    return new DeviceError('host_key_changed', `${where}: HOST KEY CHANGED: it now presents ${keyType(verdict.blob)} ${fingerprint(verdict.blob)}, not the key in ${knownHosts}; refused. This may be a replaced router or an interception; ${trust} (after removing the old line)`);
  }
  if (verdict.state === 'revoked') return new DeviceError('host_key_changed', `${where}: the host key is marked @revoked in ${knownHosts}; refused`);
  if (error.level === 'client-authentication') return new DeviceError('auth_failed', `${where}: authentication failed for user ${device.username}: check the credential the inventory names`);
  if (error.level === 'client-timeout' || /timed out/i.test(error.message)) return new DeviceError('unreachable', `${where}: no answer within the connect timeout`);
  const code = error.code ?? '';
  if (['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET'].includes(code)) {
    return new DeviceError('unreachable', `${where}: unreachable (${code})`);
  }
  return new DeviceError('unreachable', `${where}: ${error.message}`);
}
