import net from 'node:net';
import { onTestFinished } from 'vitest';

export interface StallProxy {
  /** The database URL through the proxy. */
  url: string;
  /** Nothing passes either way, closes included (a network that stalls): the server keeps its sessions. */
  stall(): void;
  /** Everything held passes again, in order. */
  resume(): void;
}

/**
 * A TCP proxy in front of PostgreSQL for one relay, so the database stalls for that relay alone
 * while the others reach it. A stalled socket is paused: what it was sent stays in the kernel's
 * buffers, a close included, and passes on `resume`.
 */
export async function stallProxy(databaseUrl: string): Promise<StallProxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<net.Socket>();
  let stalled = false;
  const server = net.createServer((down) => {
    const up = net.connect(Number(target.port), target.hostname);
    for (const [from, to] of [
      [down, up],
      [up, down],
    ] as const) {
      sockets.add(from);
      // Written by hand, not piped: a pipe resumes its source by itself when the other side drains.
      from.on('data', (chunk) => to.write(chunk));
      from.on('end', () => to.end());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
      from.on('error', () => {});
      if (stalled) from.pause();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  const url = new URL(databaseUrl);
  url.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url: url.toString(),
    stall() {
      stalled = true;
      for (const s of sockets) s.pause();
    },
    resume() {
      stalled = false;
      for (const s of sockets) s.resume();
    },
  };
}
