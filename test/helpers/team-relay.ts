import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { newToken } from '../../src/core/operators/operators';
import type { Relay } from '../../src/relay/create-relay';
import { relayForTest } from './relay';
import { createStubRuntime } from './stub-runtime';
import { tempDir } from './temp-dir';

/** The on-call team of the team-relay tests: one approver, one viewer, each with a fresh token. */
export const team = { ana: newToken(), vic: newToken(), secret: 'splunk-secret-team' };

/** A relay on loopback with Splunk's secret and the team's OPERATORS_FILE; closed by `close()`. */
export async function teamRelayForTest(): Promise<{ relay: Relay; url: string }> {
  const ops = join(tempDir('fault-relay-team-'), 'operators.yaml');
  writeFileSync(
    ops,
    stringify({
      operators: [
        { name: 'Ana Ruiz', email: 'ana@example.net', role: 'approver', token_sha256: team.ana.sha256 },
        { name: 'Victor Li', email: 'vic@example.net', role: 'viewer', token_sha256: team.vic.sha256 },
      ],
    }),
  );
  const relay = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: team.secret, OPERATORS_FILE: ops }, extraChannels: () => ['desktop'] });
  return { relay, url: await relay.listen({ port: 0, host: '127.0.0.1' }) };
}
