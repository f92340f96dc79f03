/**
 * npm run bench:team-list: the tray as a team-relay client of a relay with many stored incidents, as
 * ratios in one run against the same with 100 stored.
 *   snapshot   time from connecting to holding the snapshot (GET /events' first frame, parsed): the open
 *              incidents and the newest finished ones (RECENT_FINISHED); the rest is paged by cursor
 *   list       the window's sort and filter over what it holds (what each keystroke in the search box costs)
 * Printed, not asserted.
 */
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { stringify } from 'yaml';
import { createTeamClient } from '../electron/team-client';
import { filterIncidents, NO_FILTER } from '../renderer/state/incident-filter';
import { sortIncidents } from '../renderer/state/incidents-state';
import { loadConfig } from '../src/config/load';
import { NO_APPLICATION, type Incident } from '../src/core/incidents/model';
import { createMemoryBackend, createPersistentStore } from '../src/core/incidents/persistent-store';
import { newToken } from '../src/core/operators/operators';
import { createRelay } from '../src/relay/create-relay';
import { createDeferredRuntime } from '../src/adapters/agent/deferred';
import { laptopRelayCluster } from '../src/relay/laptop-cluster';

const logger = pino({ level: 'silent' });
const dir = mkdtempSync(join(tmpdir(), 'fault-relay-bench-team-'));
const token = newToken();
writeFileSync(join(dir, 'ops.yaml'), stringify({ operators: [{ name: 'Bench', email: 'bench@example.net', role: 'viewer', token_sha256: token.sha256 }] }));

async function measure(count: number) {
  const config = loadConfig({ AGENT_URL: 'http://127.0.0.1:1', AGENT_SERVER_PASSWORD: 'x', WEBHOOK_SECRET: 'bench', OPERATORS_FILE: join(dir, 'ops.yaml'), INCIDENT_RETENTION: String(count + 10) });
  // The team's incidents, stored as a relay that has run for a while would hold them (created one by
  // one through the relay, each would rewrite the index: that cost belongs to the store, not this bench).
  const backend = createMemoryBackend();
  const at = new Date().toISOString();
  const incidents: Incident[] = Array.from({ length: count }, (_, i) => ({
    incident_id: `INC-20261124T000000Z-${i + 1}`, kind: 'relay', session_id: `ses_${i}`, alert_def_id: 'AD000002', device_hostname: `R${i % 50}`, mode: 'strict',
    // Finished runs: nothing for the relay to recover or deliver, so only the list is measured.
    state: i % 3 === 0 ? 'escalated' : 'resolved', created_at: at, updated_at: at, occurrences: 1, last_seen: at, warnings: [],
    alert_vars: { neighbor_ip: `10.${(i >> 8) & 255}.${i & 255}.2` }, field_sources: null, severity: 'major', progress: null, approval_request: null, approval: null,
    application: NO_APPLICATION, change: null, outcome: { kind: i % 3 === 0 ? 'escalated' : 'resolved', summary: 'bench', at }, prompt_text: null, dedup_key: `b-${i}`, delivery: { attempts: 1, next_attempt_at: null, last_error: null },
  }));
  backend.set('incidents', incidents);
  const store = createPersistentStore({ backend, retention: count + 10, logger });
  // Nothing is delivered in this bench: a runtime that is never attached (the relay's own stand-in).
  const relay = await createRelay({ cluster: laptopRelayCluster(config.RELAY_DATA_DIR), config, store, agent: createDeferredRuntime(), logger });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  const connect = () => {
    const started = performance.now();
    return new Promise<{ client: ReturnType<typeof createTeamClient>; ms: number }>((resolve) => {
      const c = createTeamClient({ url, token: token.token, onEvent: (e) => e.type === 'snapshot' && resolve({ client: c, ms: performance.now() - started }) });
    });
  };
  // The first connection overlaps the relay's own start-up work (session logs, recovery): measure the second.
  await (await connect()).client.stop();
  const { client, ms: snapshotMs } = await connect();
  const byId = new Map(client.incidents().map((i) => [i.incident_id, i]));
  const rounds = 20;
  const t = performance.now();
  for (let r = 0; r < rounds; r++) filterIncidents(sortIncidents(byId), { ...NO_FILTER, query: `10.0.${r}` });
  const listMs = (performance.now() - t) / rounds;
  await client.stop();
  await relay.close();
  return { stored: count, held: client.incidents().length, snapshotMs, listMs };
}

try {
  const small = await measure(100);
  const large = await measure(10_000);
  console.log(`team relay client: ${small.stored} vs ${large.stored} incidents stored, all finished; the snapshot holds ${small.held} vs ${large.held}`);
  console.log(`snapshot on connect   ${small.snapshotMs.toFixed(1)} ms vs ${large.snapshotMs.toFixed(1)} ms  (ratio ${(large.snapshotMs / small.snapshotMs).toFixed(1)})`);
  console.log(`sort + filter (search) ${small.listMs.toFixed(2)} ms vs ${large.listMs.toFixed(2)} ms per keystroke; the list renders only the rows in view`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
