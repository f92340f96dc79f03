import { configSchema, SECRET_KEYS, type RelayConfig } from '../../config/schema';
import { valueInForce, type SettingSource } from '../../config/setting-sources';
import type { SettingFieldBody } from './ui-schemas';

/** What each variable means, as docs/configuration.md's table says; shown beside its field. */
export const SETTING_DESCRIPTIONS: Record<keyof RelayConfig, string> = {
  AGENT_URL: 'Base URL of an opencode server started elsewhere; unset: the relay runs its own.',
  AGENT_SERVER_USERNAME: 'Basic-auth user for the agent runtime.',
  AGENT_SERVER_PASSWORD: 'Basic-auth password for the agent runtime (required with AGENT_URL).',
  AGENT_NAME: 'Agent the first prompt is addressed to.',
  REMEDIATION_MODE: 'strict: only the runbook\'s commands; hybrid: extra read-only diagnostics.',
  INGEST_PORT: 'Relay port.',
  RELAY_HOST: 'Relay bind address; 0.0.0.0 only with WEBHOOK_SECRET set.',
  RELAY_ALLOWED_HOSTS: 'Host names requests may address besides loopback (needed when RELAY_HOST is not loopback).',
  RELAY_TRUSTED_PROXY: 'Reverse proxies (addresses, CIDRs, loopback) whose X-Forwarded-For/-Proto are believed: client addresses for rate limits, https for Secure cookies.',
  RELAY_DATA_DIR: 'Incident index and timelines.',
  RELAY_LOG_DIR: 'Session logs (troubleshooting/<UTC>-<alert>-<device>.md).',
  RELAY_PROJECT_DIR: 'Folder the embedded runtime runs in (its .opencode/ and opencode.json).',
  WEBHOOK_SECRET: 'Bearer secret for /fault-alert, /health/deep, /sessions*, the proxy and this UI.',
  MAX_ACTIVE_RUNS: 'Runs at once; further alerts wait queued, first in first out.',
  MAX_BODY_BYTES: 'Largest accepted request body.',
  INCIDENT_RETENTION: 'Finished incidents kept; open ones are never dropped.',
  DELIVERY_RETRY_MAX_MS: 'Longest wait between delivery retries to the runtime.',
  AGENT_SPARE_SESSION: 'on: one agent session is made ready before the next alert (listed as "Fault Relay: ready for the next alert"), so a delivery is one runtime call; off: each alert creates its own.',
  DEVICE_MCP_URL: 'Device tool server, checked by /health/deep; unset: check skipped.',
  DEVICE_MCP_TOKEN: 'Bearer the relay sends to the device tool server at DEVICE_MCP_URL (npm run devices: DEVICE_SERVER_TOKEN); never given to the runtime.',
  PAGERDUTY_ROUTING_KEY: 'PagerDuty Events API v2 routing key: the escalation chain and failed runs page through PagerDuty.',
  PAGERDUTY_URL: 'PagerDuty events host (a regional one).',
  OPSGENIE_API_KEY: 'Opsgenie Alert API key: the escalation chain and failed runs page through Opsgenie.',
  OPSGENIE_URL: 'Opsgenie API host (https://api.eu.opsgenie.com in the EU).',
  RELAY_PUBLIC_URL: 'The relay as people reach it: the /ui and evidence links in a page; default http://RELAY_HOST:INGEST_PORT.',
  TEAM_RELAY_URL: 'Tray only: "team relay" mode. The tray follows this relay (incidents, approvals, decisions as you) and runs no relay or runtime here; unset: "this laptop".',
  TEAM_RELAY_TOKEN: 'Tray only: your personal token for the team relay (from npm run operators -- token on the team relay), kept encrypted.',
  POLICY_FILE: 'The change policy the relay enforces before any card (classes by CEL, hours, freezes, change records); edited in place, picked up without a restart.',
  OPERATORS_FILE: 'The on-call team (name, email, approver|viewer, token_sha256): personal tokens decide over POST /incidents/:id/decision and open the read-only views.',
  DATABASE_URL: 'Team relay: incidents in PostgreSQL, shared by every relay on it; unset: files under RELAY_DATA_DIR.',
  TEAM_DECISION_KEY: 'Team relay (required with DATABASE_URL): the key (32+ characters, the same on every relay, never in the database) that signs decisions and confirms written to the database; rows that do not verify are ignored.',
  TEAM_DECISION_KEY_FILE: 'Team relay: a file holding TEAM_DECISION_KEY instead of the variable.',
  RELAY_ID: 'Team relay: this relay\'s name on the database (unique); restarted under it, the relay goes on with its own incidents.',
  RELAY_LEASE_MS: 'Team relay: a relay silent this long is taken over by another (its queued alerts and runs).',
  DEVICE_INVENTORY: 'Device inventory (YAML): the relay runs the SSH device tool server on it itself; DEVICE_MCP_URL wins when both are set.',
  DEVICE_SERVER_MODE: 'detached: that device server is a process of its own that rolls an unconfirmed change back by its deadline even if the relay is killed; in-process: it dies with the relay.',
  MSG_BOT_TOKEN: 'Webex bot token; with MSG_ROOM_ID enables the Webex channel.',
  MSG_ROOM_ID: 'Webex room for messages and approval cards.',
  MSG_U2C_URL: 'Webex service catalogue.',
  MSG_API_URL: 'Webex REST API.',
  MSG_APPROVERS: 'Comma-separated e-mails allowed to approve; unset: anyone in the room.',
  SLACK_APP_TOKEN: 'Slack app-level token (xapp-, connections:write) for Socket Mode; with SLACK_BOT_TOKEN and SLACK_CHANNEL_ID enables the Slack channel.',
  SLACK_BOT_TOKEN: 'Slack bot token (xoxb-) that posts and updates approval messages.',
  SLACK_CHANNEL_ID: 'Slack channel for messages and approval requests; clicks elsewhere are refused.',
  SLACK_API_URL: 'Slack Web API.',
  APPROVAL_TTL: 'An approval not given by then escalates the incident.',
  APPROVAL_APPLY_WINDOW: 'An approved change not applied by then expires; a new decision is needed (default: APPROVAL_TTL).',
  APPROVAL_WHEN_UNATTENDED: 'With no approval channel: approve (with a loud warning) or deny.',
  CONFIRM_WITHIN_S: 'Seconds a change stays provisional when its RAW sets none: confirmed by the post-check or a person, else put back.',
  RELAY_TOOLS_TOKEN: 'Bearer the agents use for the relay\'s tool endpoint.',
  SEARCH_UPSTREAM_URL: 'Splunk management URL behind /search-platform/*; unset: the proxy answers 503.',
  SEARCH_UPSTREAM_TOKEN: 'Credential the proxy sends upstream.',
  SEARCH_UPSTREAM_TIMEOUT_MS: 'Proxy timeout (then 504).',
  SPLUNK_HEC_URL: 'Audit stream: Splunk HTTP Event Collector base URL (https://splunk:8088); with SPLUNK_HEC_TOKEN every decision, change, verdict, escalation, failed authentication and configuration change is sent there.',
  SPLUNK_HEC_TOKEN: 'Audit stream: the HEC token (sent as Authorization: Splunk <token>).',
  SPLUNK_HEC_ACK: 'Audit stream: on when the HEC token has indexer acknowledgement; an event counts as delivered once Splunk has indexed it.',
  SPLUNK_HEC_INDEX: 'Audit stream: the Splunk index; unset: the token\'s default.',
  SYSLOG_URL: 'Audit stream as RFC 5424 syslog: tcp://host:port or tls://host:port (delivered once written), relp://host:port or relp+tls://host:port (delivered once rsyslog acknowledges).',
  SYSLOG_CA_FILE: 'Audit stream over tls://: PEM file of the CA that signed the receiver\'s certificate; unset: the system\'s CAs.',
  LOG_LEVEL: 'pino log level.',
  RELAY_CONSOLE: 'npm run relay: human lines on a terminal with the JSON log in RELAY_LOG_DIR/relay.log (auto on a TTY, or human), or JSON on standard output (json).',
};

const secrets: ReadonlySet<string> = new Set(SECRET_KEYS);

const shown = (value: unknown): string | null => {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return value.join(', ');
  return String(value);
};

export interface SettingContext {
  /** Where each value came from; absent keys count as defaults. */
  sources?: Partial<Record<keyof RelayConfig, SettingSource>>;
  /** The port the relay actually listens on (INGEST_PORT may be 0: any free port). */
  servedPort?: number;
}

/**
 * Every setting, in the schema's order, as the settings view shows it: the value as configured (for
 * editing), the value in force as a person reads it (`30m`, the port really served), and where it came
 * from. Secrets are write-only: their value is never returned, only whether one is set.
 */
export function settingFields(config: RelayConfig, ctx: SettingContext = {}): SettingFieldBody[] {
  return (Object.keys(configSchema.shape) as (keyof RelayConfig)[]).map((name) => {
    const secret = secrets.has(name);
    // APPROVAL_TTL is written as a duration and parsed to ms: edit it as written (`30m`), not as 1800000.
    const value = name === 'APPROVAL_TTL' || name === 'APPROVAL_APPLY_WINDOW' ? valueInForce(name, config) : shown(config[name]);
    let source: SettingSource = ctx.sources?.[name] ?? 'default';
    let inForce = secret ? null : valueInForce(name, config);
    let note: string | undefined;
    if (name === 'INGEST_PORT' && ctx.servedPort !== undefined && String(ctx.servedPort) !== value) {
      inForce = String(ctx.servedPort);
      note = `configured ${value}${value === '0' ? ' (any free port)' : ''}; served on ${ctx.servedPort}`;
    }
    if (name === 'RELAY_TOOLS_TOKEN' && value === null) {
      // The relay always has one: it made it, and hands it over itself (never shown, never logged).
      source = 'generated';
      note = 'generated at start; given to the embedded runtime directly and to npm run headed through RELAY_DATA_DIR/runtime-attach.json (0600)';
    }
    return {
      name,
      value: secret ? null : value,
      inForce,
      source,
      ...(note ? { note } : {}),
      secret,
      isSet: value !== null && value !== '',
      description: SETTING_DESCRIPTIONS[name],
    };
  });
}
