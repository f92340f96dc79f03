import { readdirSync } from 'node:fs';

/**
 * Files that share one worker process (no per-file isolation): importing fastify, zod, pino, the
 * MCP SDK etc. again for each of them cost more CPU than their tests. What such a file must not
 * leak is in test/README.md. The exceptions start PostgreSQL, opencode or the relay (the bundled
 * Electron main process is one), start the global OpenTelemetry SDK, or replace a module with vi.mock:
 * each keeps a fork of its own.
 */
export const OWN_PROCESS = [
  'relay/approval-restart-states', 'relay/approval-restart', 'relay/busy-device', 'relay/channel-seam', 'relay/device-guard',
  'relay/device-server-auth', 'relay/device-server-settings', 'relay/headed', 'relay/held-restart', 'relay/plan', 'relay/proxies',
  'relay/quarantine', 'relay/terminal-channel', 'relay/ui-routes', 'relay/unstorable-text', 'unit/electron/bundle-smoke',
].map((name) => `test/${name}.test.ts`);
export const SHARED = ['unit', 'lab', 'slack', 'relay'].flatMap((folder) =>
  readdirSync(new URL(folder, import.meta.url), { recursive: true, encoding: 'utf8' })
    .map((file) => `test/${folder}/${file.split('\\').join('/')}`)
    .filter((file) => /\.test\.tsx?$/.test(file) && !OWN_PROCESS.includes(file)),
);
