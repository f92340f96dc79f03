import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Server, utils, type ServerChannel } from 'ssh2';
import { parseInventory, type Inventory } from '../../../src/adapters/devices/inventory';

export const FAKE_CLI_PASSWORD_ENV = 'FAULT_RELAY_FAKE_CLI_PASSWORD';

export interface FakeCliDevice {
  /** TCP connections made to it: a call refused before the device was reached made none. */
  connections(): number;
  /** Interactive sessions (shells) opened on it. */
  sessions(): number;
  /** Resolves when the client next closes a shell. */
  nextClose(): Promise<void>;
  /** Ctrl-C characters received, in all sessions. */
  interrupts(): number;
  /** An inventory with R1 at this device (platform frr, the given command timeout), written into `dir`. */
  inventoryIn(dir: string, commandTimeoutMs: number): Inventory;
  stop(): Promise<void>;
}

/** A line after which the device stops taking connections and hangs up: a router lost mid-change. */
export const HANG_UP_LINE = 'fault-relay-test-hang-up';

/**
 * An SSH device whose CLI behaves as FRR's vtysh does around a slow command (seen on FRR 8.4): while the
 * daemon works, typed lines are echoed by the terminal and queued; Ctrl-C prints a fresh prompt but does
 * not stop the command. `show slow` is such a command: it ends only when `releaseOn` says so.
 * `HANG_UP_LINE` closes the listener, then the connection: a reconnect finds the port refused.
 */
export function startFakeCliDevice(releaseOn: 'line-while-busy' | 'never'): Promise<FakeCliDevice> {
  // ssh2's ed25519 generator strips a leading zero byte of the public key, so about 1 key in 256 is one
  // ssh2 itself cannot parse (mscdex/ssh2#1513, "Malformed OpenSSH private key" at new Server): a
  // suite run failed on it. Draw again until ssh2 reads both halves back.
  let key = utils.generateKeyPairSync('ed25519');
  while (utils.parseKey(key.private) instanceof Error || utils.parseKey(key.public) instanceof Error) key = utils.generateKeyPairSync('ed25519');
  let connections = 0;
  let sessions = 0;
  const onClose: Array<() => void> = [];
  let interrupts = 0;

  const serve = (out: ServerChannel, hangUp: () => void) => {
    const prompt = () => out.write('R1# ');
    let busy = false;
    let line = '';
    const queued: string[] = [];
    const run = (cmd: string) => {
      if (cmd === 'show slow') return void (busy = true);
      if (cmd === HANG_UP_LINE) return hangUp();
      if (cmd === 'show version') out.write('FRRouting 8.4.4 (R1)\r\n');
      else if (cmd && cmd !== 'terminal length 0') out.write(`% Unknown command: ${cmd}\r\n`);
      prompt();
    };
    const finishSlow = () => {
      busy = false;
      out.write('late output of show slow\r\n');
      prompt();
      // What was typed meanwhile is read now, echoed again by the CLI, and run.
      for (const next of queued.splice(0)) {
        out.write(`${next}\r\n`);
        run(next);
      }
    };
    out.on('data', (chunk: Buffer) => {
      for (const c of chunk.toString('utf8')) {
        if (c === '\u0003') {
          interrupts += 1;
          line = '';
          // vtysh's signal handler prints this on its own time: after the terminal echoed what followed.
          setImmediate(() => {
            out.write('^C\r\n');
            prompt();
          });
        } else if (c === '\n' || c === '\r') {
          out.write('\r\n');
          const typed = line.trim();
          line = '';
          if (!busy) run(typed);
          else {
            queued.push(typed);
            if (releaseOn === 'line-while-busy') setImmediate(finishSlow);
          }
        } else {
          line += c;
          out.write(c);
        }
      }
    });
    out.on('close', () => {
      for (const done of onClose.splice(0)) done();
    });
    out.write('\r\nHello, this is a fake FRRouting.\r\n\r\n');
    prompt();
  };

  const server = new Server({ hostKeys: [key.private] }, (client) => {
    client.on('authentication', (ctx) => ctx.accept());
    client.on('error', () => {});
    client.on('ready', () => {
      client.on('session', (accept) => {
        const session = accept();
        session.on('pty', (ok) => ok?.());
        session.on('shell', (ok) => {
          sessions += 1;
          serve(ok(), () => {
            server.close();
            client.end();
          });
        });
      });
    });
  });
  server.on('connection', () => (connections += 1));

  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      process.env[FAKE_CLI_PASSWORD_ENV] = 'not-a-real-password';
      resolve({
        connections: () => connections,
        sessions: () => sessions,
        nextClose: () => new Promise<void>((done) => onClose.push(done)),
        interrupts: () => interrupts,
        inventoryIn(dir, commandTimeoutMs) {
          const path = join(dir, 'devices.yaml');
          const [type, blob] = key.public.split(' ');
          writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${type} ${blob}\n`);
          const text = [
            'known_hosts: ./known_hosts',
            'devices:',
            `  - { name: R1, host: 127.0.0.1, port: ${port}, platform: frr, username: relay, command_timeout_ms: ${commandTimeoutMs}, credential: { password_env: ${FAKE_CLI_PASSWORD_ENV} } }`,
            '',
          ].join('\n');
          writeFileSync(path, text);
          return parseInventory(text, path);
        },
        stop: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
