import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../../core/clock';
import type { RelayConfig } from '../../config/schema';
import type { Bus } from '../../core/events/bus';
import type { RelayEvents } from '../../core/incidents/events';
import type { Owns } from '../../core/incidents/ownership';
import type { Incidents } from '../../core/incidents/service';
import { createProxyDispatchers, NO_PROXY_SETTINGS, type ProxySettings } from '../net/proxy';
import { openFileOutboxStore } from '../outbox/file-store';
import { createOutbox, type Outbox } from '../outbox/outbox';
import type { OutboxStore } from '../outbox/types';
import type { EscalationStep } from '../../core/policy/schema';
import { PAGER_LABELS, type Page, type PagerName } from './page';
import { createPaging } from './paging';
import { sendPage, type PagerEndpoint } from './wire';

export interface PagingSetupDeps {
  config: RelayConfig;
  incidents: Incidents;
  bus: Bus<RelayEvents>;
  clock: Clock;
  logger: Logger;
  owns: Owns;
  remind: (incidentId: string, markdown: string) => void;
  steps: () => readonly EscalationStep[];
  proxy?: ProxySettings | undefined;
  /** Where the pages are kept until sent: default the data folder's file (a team gives its table, each page sent by one relay). */
  openStore?: (stream: string) => OutboxStore;
  /** Where /metrics reads the backlog. */
  registry?: Registry;
}

/**
 * Paging as the configuration asks: PagerDuty with PAGERDUTY_ROUTING_KEY, Opsgenie with
 * OPSGENIE_API_KEY, through the durable outbox (the data folder's file, or the team's table),
 * over the corporate proxy like every outbound call. Without a pager the chain still reminds.
 */
export function setUpPaging(deps: PagingSetupDeps) {
  const { config, logger } = deps;
  const proxies = createProxyDispatchers(deps.proxy ?? NO_PROXY_SETTINGS);
  const dispatcherFor = (url: string) => proxies.for(url);
  const endpoints: Partial<Record<PagerName, PagerEndpoint>> = {
    ...(config.PAGERDUTY_ROUTING_KEY ? { pagerduty: { url: config.PAGERDUTY_URL, secret: config.PAGERDUTY_ROUTING_KEY, dispatcherFor } } : {}),
    ...(config.OPSGENIE_API_KEY ? { opsgenie: { url: config.OPSGENIE_URL, secret: config.OPSGENIE_API_KEY, dispatcherFor } } : {}),
  };
  const pagers = Object.keys(endpoints) as PagerName[];
  const publicUrl = config.RELAY_PUBLIC_URL ?? `http://${config.RELAY_HOST.includes(':') ? `[${config.RELAY_HOST}]` : config.RELAY_HOST}:${config.INGEST_PORT}`;
  let outbox: Outbox | undefined;
  const paging = createPaging({
    incidents: deps.incidents,
    bus: deps.bus,
    clock: deps.clock,
    logger,
    steps: deps.steps,
    pagers,
    remind: deps.remind,
    owns: deps.owns,
    publicUrl,
    outbox: { enqueue: (item) => (outbox ? outbox.enqueue(item) : Promise.resolve({ queued: false })) },
  });
  if (pagers.length > 0) {
    outbox = createOutbox({
      name: 'pager',
      store: deps.openStore ? deps.openStore('pager') : openFileOutboxStore(resolve(config.RELAY_DATA_DIR), 'pager'),
      send: (item) => sendPage(item.payload as Page, endpoints),
      clock: deps.clock,
      logger: logger.child({ component: 'pager' }),
      onFinished: (item, outcome, reason) => paging.onFinished(item.payload as Page, outcome, reason),
    });
  }
  const current = outbox;
  if (current && deps.registry) {
    new Gauge({
      name: 'fault_relay_page_backlog',
      help: 'Pages queued in the outbox and not yet sent (or failed for good).',
      registers: [deps.registry],
      collect() {
        this.set(current.status().backlog);
      },
    });
  }
  return {
    pagers,
    status: () => current?.status(),
    /** Resolves when every page decided so far is queued and the outbox has nothing due (tests). */
    async settled(): Promise<void> {
      await paging.settled();
      await current?.idle();
    },
    start(): void {
      paging.start();
      current?.start();
    },
    /** For /health: a pager that refused a page for good, or cannot be reached now, and why. */
    warnings(): string[] {
      const error = current?.status().last_error;
      if (!error) return [];
      const pager = PAGER_LABELS[(error.key.split(':').at(-1) ?? '') as PagerName] ?? 'A pager';
      return [error.permanent ? `${pager} refused a page (${error.reason}) at ${error.at}: check its key and the relay's log; it is not sent again.` : `${pager} could not be reached for a page (${error.reason}) at ${error.at}: ${current?.status().backlog ?? 0} page(s) wait to be sent.`].filter(() => error.permanent || (current?.status().backlog ?? 0) > 0);
    },
    async stop(): Promise<void> {
      paging.stop();
      await current?.stop();
      await proxies.close();
    },
  };
}
