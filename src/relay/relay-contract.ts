import type { AddressBook } from '../runbooks/plan-devices';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AgentRuntime } from '../core/agent-runtime';
import type { IncidentHandling } from '../core/incidents/incident-handling';
import type { ApprovalsView } from '../core/approvals/approvals';
import type { ConfirmFn, DecideFn } from '../core/approvals/decision-command';
import type { Cluster } from '../core/cluster/cluster';
import type { OutboxStore } from '../adapters/outbox/types';
import type { OperatorChannel } from '../core/approvals/operator-channel';
import type { DeviceTools } from '../core/changes/device-contract';
import type { Clock } from '../core/clock';
import type { RelayConfig } from '../config/schema';
import type { SettingSource } from '../config/setting-sources';
import type { createDispatcher } from '../core/delivery/dispatcher';
import type { Bus } from '../core/events/bus';
import type { RelayEvents } from '../core/incidents/events';
import type { Incident } from '../core/incidents/model';
import type { createIncidents } from '../core/incidents/service';
import type { IncidentStore } from '../core/incidents/store';
import type { ProxySettings } from '../adapters/net/proxy';
import type { DeviceServerLaunch } from '../adapters/devices/detached-server';
import type { MessagingHealth } from './health-checks';
import type { HeadedIntake } from './headed-intake';
import type { SignInLinks } from './sign-in';
import type { Quarantine } from '../core/quarantine/service';

/** What createRelay (create-relay.ts) takes and gives: the tray and the headless relay wire these. */

export interface RelayDeps {
  config: RelayConfig;
  store: IncidentStore;
  agent: AgentRuntime;
  logger: Logger;
  clock?: Clock;
  bus?: Bus<RelayEvents>;
  messaging?: () => MessagingHealth;
  /** A team follower: the leader holds the channels' sockets (default: never, as on a laptop). */
  standby?: () => boolean;
  /**
   * The operator channels, in the order they are asked (src/adapters/channels/index.ts builds them
   * from the settings); without any, approvals are unattended unless another channel is live.
   */
  channels?: readonly OperatorChannel[];
  /** Other live approval channels, e.g. the tray's desktop notifications. */
  extraChannels?: () => string[];
  /** Device tools behind the guard; default: an MCP client to DEVICE_MCP_URL. */
  deviceTools?: DeviceTools;
  /** How to start the detached device server (DEVICE_INVENTORY); default: node on scripts/devices.ts. The tray starts itself. */
  deviceServerLaunch?: DeviceServerLaunch;
  /** The environment the detached device server's credentials come from (password_env …); default: process.env. */
  deviceServerEnv?: NodeJS.ProcessEnv;
  /** Caps the RAW's waits and retry intervals in the relay's post-check, in seconds (demos, tests). */
  postCheckPaceS?: number;
  /** Where a plan's other devices are found (the simulated lab's addresses); default: DEVICE_INVENTORY's `addresses`. */
  addressBook?: AddressBook;
  /** Bearer for the agents' tool endpoint; RELAY_TOOLS_TOKEN, else generated for this run. */
  toolsToken?: string;
  /** The headed terminal's decision credential (npm run headed); generated when absent. */
  terminalSecret?: string;
  protectedRoutes?: (scope: FastifyInstance) => Promise<void>;
  /** The built renderer for /ui (tests build it into a temp folder). */
  uiDistDir?: string;
  /** Where each setting came from, for the settings view. */
  settingSources?: Partial<Record<keyof RelayConfig, SettingSource>>;
  /** Outbound proxy settings (HTTPS_PROXY …), for the search proxy's upstream. */
  proxy?: ProxySettings;
  /** Upper bound on how long `POST /fault-alert` waits for the session before answering `queued`. */
  deliveryWaitMs?: number;
  retryBaseMs?: number;
  /**
   * The relays this one shares its incidents with, and how: alone (`laptopRelayCluster`, which also
   * says where quarantines and held requests are kept) or a team on DATABASE_URL (`teamCluster`).
   */
  cluster: RelayCluster;
  /** A laptop relay's local operator and their one-time sign-in links for /ui (`npm run relay`). */
  signIn?: SignInLinks;
}

export interface Relay {
  app: FastifyInstance;
  bus: Bus<RelayEvents>;
  incidents: ReturnType<typeof createIncidents>;
  dispatcher: ReturnType<typeof createDispatcher>;
  /** The approval gate as seen from outside the composition (`ApprovalsView`): never its own step of a decision; people decide through `decide`. */
  approvals: ApprovalsView;
  /**
   * The one way a person's decision is made, whatever the channel (tray, notification, card, API,
   * terminal): a decision command, recorded where the cluster records it (on a team, the database
   * first, so the decisions table and the incident never disagree) and applied by the owner.
   */
  decide: DecideFn;
  /** A person keeps a provisional change (tray, /ui, API), recorded like a decision; undefined on a relay without device tools. */
  confirm?: ConfirmFn;
  /** Devices no change reaches until a person clears them (tray, /ui, POST /devices/:name/clear). */
  quarantine: Pick<Quarantine, 'list' | 'cached' | 'check' | 'clear'>;
  /** Holds every run (queued deliveries and headed terminals) while `check` names a reason; until the returned function is called. */
  holdRunsWhile(check: () => string | null): () => void;
  /** Asks `question` each time the runtime is asked for its model (in turn, never beside a delivery); until the returned function is called. */
  alsoAskWithModel(question: () => Promise<void>): () => void;
  /** Adds warnings to /health, /ui and the tray until the returned function is called. */
  addStandingWarnings(source: () => string[]): () => void;
  /** Creates a headed incident and its prompt (the tray's and the UI's prompt copiers). */
  startHeaded: HeadedIntake;
  /** What people do with an incident besides deciding (the tray uses it as the API's routes do). */
  handling: IncidentHandling;
  /** What the agents' runtime needs to reach the relay's tools. */
  toolsToken: string;
  /** What `npm run headed` presents to report typed decisions; never given to the runtime. */
  terminalSecret: string;
  /** Where an incident's session log is (or will be) written. */
  sessionLogPath: (incident: Incident) => string;
  /** Listens on RELAY_HOST:INGEST_PORT (or the given port); returns the base URL. */
  listen(opts?: { port?: number; host?: string }): Promise<string>;
  close(): Promise<void>;
}

/** The cluster as the relay composes it: the core's port, and where the outbox and the audit stream say who this relay is. */
export type RelayCluster = Cluster & {
  /** How the audit stream names this relay. */
  readonly host: string;
  /** Where an outbox stream (pager, a SIEM sink) keeps its items: the data folder's file, or the team's table. */
  openOutbox(stream: string): OutboxStore;
};
