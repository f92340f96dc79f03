/**
 * A laptop relay in a process of its own, for the kill -9 test: the relay's real files store,
 * outbox and paging on RELAY_DATA_DIR, with a stub runtime that has no model (so each alert's run
 * fails at once, which pages). Prints `listening <url>` when it answers.
 */
import { join, resolve } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config/load';
import { createFileBackends } from '../../src/core/incidents/file-backend';
import { createPersistentStore } from '../../src/core/incidents/persistent-store';
import { createRelay } from '../../src/relay/create-relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { laptopRelayCluster } from '../../src/relay/laptop-cluster';

const logger = pino({ level: 'silent' });
const config = loadConfig({ ...process.env, AGENT_URL: 'http://127.0.0.1:1', AGENT_SERVER_PASSWORD: 'pw', AGENT_SPARE_SESSION: 'off' });
const dataDir = resolve(config.RELAY_DATA_DIR);
const backends = createFileBackends(dataDir);
const store = createPersistentStore({ backend: backends.open, archive: backends.archive, timelineDir: join(dataDir, 'timelines'), retention: config.INCIDENT_RETENTION, logger });
const agent = createStubRuntime();
agent.model = null;
const relay = await createRelay({ cluster: laptopRelayCluster(config.RELAY_DATA_DIR), config, store, agent, logger, retryBaseMs: 50 });
const url = await relay.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening ${url}\n`);
