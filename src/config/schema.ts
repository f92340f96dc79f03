import { isIP } from 'node:net';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const url = z.url({ protocol: /^https?$/ });
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));
const optionalUrl = optionalString.pipe(url.optional());

/** The shortest team decision key accepted (characters): a guessable key would let the database forge decisions. */
export const DECISION_KEY_MIN_CHARS = 32;

/** Byte sizes like `256k`, `1m` or a plain number of bytes. */
const byteSize = z
  .union([z.number(), z.string()])
  .transform((v, ctx) => {
    const m = /^\s*(\d+)\s*([kKmM]?)[bB]?\s*$/.exec(String(v));
    if (!m) {
      ctx.addIssue({ code: 'custom', message: 'expected a size such as 262144, 256k or 1m' });
      return z.NEVER;
    }
    const unit = m[2]?.toLowerCase();
    return Number(m[1]) * (unit === 'k' ? 1024 : unit === 'm' ? 1024 * 1024 : 1);
  })
  .pipe(z.number().int().min(1024).max(64 * 1024 * 1024));

const emailList = optionalString.transform((v) =>
  v
    ? v
        .split(/[,\s]+/)
        .map((e) => e.trim().toLowerCase())
        .filter(Boolean)
    : [],
);

/**
 * Every setting of the relay, read from environment variables. The keys are the
 * variable names so an error can name the variable the user has to fix.
 */
/** A duration written as people write it (`30m`, `90s`, `2h`, `500ms`), in milliseconds. */
export const duration = z.string().transform((v, ctx) => {
  const m = /^\s*(\d+)\s*(ms|s|m|h)?\s*$/.exec(v);
  if (!m) {
    ctx.addIssue({ code: 'custom', message: 'expected a duration such as 30m, 90s or 2h' });
    return z.NEVER;
  }
  const mult = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 'ms') as 'ms' | 's' | 'm' | 'h'];
  return Number(m[1]) * mult;
});

export const configSchema = z
  .object({
    AGENT_URL: optionalUrl,
    AGENT_SERVER_USERNAME: z.string().default('opencode'),
    AGENT_SERVER_PASSWORD: optionalString,
    AGENT_NAME: z.string().min(1).default('network-troubleshooter'),
    REMEDIATION_MODE: z.enum(['strict', 'hybrid']).default('strict'),
    INGEST_PORT: port.default(8080),
    RELAY_HOST: z.string().min(1).default('127.0.0.1'),
    /**
     * Host names (optionally `name:port`) requests may address besides the loopback names; `*`
     * turns the check off. Refusing other Host headers is what stops DNS rebinding.
     */
    RELAY_ALLOWED_HOSTS: optionalString.transform((v) =>
      v
        ? v
            .split(',')
            .map((h) => h.trim().toLowerCase())
            .filter(Boolean)
        : [],
    ),
    /**
     * The reverse proxies (addresses, CIDRs, or `loopback`, `linklocal`, `uniquelocal`) whose
     * X-Forwarded-For and X-Forwarded-Proto the relay believes: from them, the client address (rate
     * limits) and TLS (Secure cookies) come from those headers; from anyone else the headers are ignored.
     */
    RELAY_TRUSTED_PROXY: optionalString.transform((v, ctx) => {
      const entries = v ? v.split(',').map((e) => e.trim()).filter(Boolean) : [];
      for (const e of entries) {
        if (!isProxyAddress(e)) ctx.addIssue({ code: 'custom', message: `"${e}" is not an address, a CIDR (10.0.0.0/8) or one of loopback, linklocal, uniquelocal` });
      }
      return entries;
    }),
    RELAY_DATA_DIR: z.string().min(1).default('.relay-data'),
    RELAY_LOG_DIR: z.string().min(1).default('logs'),
    RELAY_PROJECT_DIR: z.string().min(1).default('.'),
    WEBHOOK_SECRET: optionalString,
    MAX_ACTIVE_RUNS: positiveInt.max(100).default(4),
    MAX_BODY_BYTES: byteSize.default(256 * 1024),
    INCIDENT_RETENTION: positiveInt.default(1000),
    DELIVERY_RETRY_MAX_MS: positiveInt.default(60_000),
    /** One agent session kept ready ahead of the next alert, so its delivery is the prompt alone. */
    AGENT_SPARE_SESSION: z.enum(['on', 'off']).default('on'),
    DEVICE_MCP_URL: optionalUrl,
    /** Bearer for the device tool server at DEVICE_MCP_URL (`npm run devices` takes it as DEVICE_SERVER_TOKEN). */
    DEVICE_MCP_TOKEN: optionalString,
    /** Tray only: follow a team relay instead of running one on this laptop (with the engineer's personal token). */
    TEAM_RELAY_URL: optionalUrl,
    TEAM_RELAY_TOKEN: optionalString,
    /** The on-call team (YAML: name, email, role, token_sha256): personal tokens for decisions and read-only access. */
    OPERATORS_FILE: optionalString,
    /** The change policy the relay enforces (policy.yaml in the project is the shipped one); unset: none. */
    POLICY_FILE: optionalString,
    /**
     * The team relay: incidents in PostgreSQL (postgres://user:password@host:5432/db), shared by every
     * relay on it. Unset: the laptop's files under RELAY_DATA_DIR.
     */
    DATABASE_URL: optionalString.pipe(z.url({ protocol: /^postgres(ql)?$/, error: 'expected postgres://user:password@host:5432/database' }).optional()),
    /**
     * The team relay's name on the database, unique per relay. A relay restarted under the same id
     * goes on with its own incidents; default: host name and INGEST_PORT (a random id per start when the port is 0).
     */
    RELAY_ID: optionalString.pipe(z.string().regex(/^[\w.:@-]{1,100}$/, 'letters, digits and . : @ _ - only (at most 100)').optional()),
    /**
     * The team relay's decision key: every decision and confirm a relay writes to the database carries
     * an HMAC under it, and the owner applies only rows that verify, so write access to the database
     * alone cannot make a person decide. The same on every relay of the team; never in the database.
     */
    TEAM_DECISION_KEY: optionalString.pipe(z.string().min(DECISION_KEY_MIN_CHARS, `at least ${DECISION_KEY_MIN_CHARS} characters (e.g. openssl rand -base64 32)`).optional()),
    /** A file holding TEAM_DECISION_KEY instead (readable by the relay only): a secret store's mount, a 0600 file. */
    TEAM_DECISION_KEY_FILE: optionalString,
    /** PagerDuty Events API v2: the integration's routing key; set, the relay pages through PagerDuty. */
    PAGERDUTY_ROUTING_KEY: optionalString,
    /** PagerDuty's events host (a regional one, or a test's fake). */
    PAGERDUTY_URL: url.default('https://events.pagerduty.com'),
    /** Opsgenie Alert API key (sent as `GenieKey`); set, the relay pages through Opsgenie. */
    OPSGENIE_API_KEY: optionalString,
    /** Opsgenie's API host (https://api.eu.opsgenie.com in the EU, or a test's fake). */
    OPSGENIE_URL: url.default('https://api.opsgenie.com'),
    /** The relay as people reach it (https://relay.example.net): the /ui and evidence links in a page. Default: http://RELAY_HOST:INGEST_PORT. */
    RELAY_PUBLIC_URL: optionalUrl,
    /** How long a team relay may miss its heartbeat before another takes over its incidents. */
    RELAY_LEASE_MS: positiveInt.min(1000).default(10_000),
    /** A device inventory: the relay starts the SSH device tool server on it itself (DEVICE_MCP_URL wins when both are set). */
    DEVICE_INVENTORY: optionalString,
    /**
     * How the relay runs that server: `detached` (a process of its own that outlives the relay and rolls
     * back an unconfirmed change by its deadline even when the relay is killed) or `in-process` (dies with it).
     */
    DEVICE_SERVER_MODE: z.enum(['detached', 'in-process']).default('detached'),
    MSG_BOT_TOKEN: optionalString,
    MSG_ROOM_ID: optionalString,
    MSG_U2C_URL: url.default('https://u2c.wbx2.com/u2c/api/v1'),
    MSG_API_URL: url.default('https://webexapis.com/v1'),
    MSG_APPROVERS: emailList,
    /** Slack over Socket Mode (outbound only): the app-level token `xapp-…` with connections:write. */
    SLACK_APP_TOKEN: optionalString,
    /** The bot token `xoxb-…` that posts and updates approval messages (chat:write, users:read.email). */
    SLACK_BOT_TOKEN: optionalString,
    /** The channel (C…) where approvals are asked; clicks from any other channel are refused. */
    SLACK_CHANNEL_ID: optionalString,
    SLACK_API_URL: url.default('https://slack.com/api'),
    APPROVAL_TTL: z.string().default('30m').pipe(duration).pipe(z.number().int().positive()),
    /** How long an APPROVED change may wait to be applied; then the approval expires. Default: APPROVAL_TTL. */
    APPROVAL_APPLY_WINDOW: optionalString.pipe(duration.optional()).pipe(z.number().int().positive().optional()),
    APPROVAL_WHEN_UNATTENDED: z.enum(['approve', 'deny']).default('deny'),
    /**
     * Seconds an applied change stays provisional when its RAW's repair step sets no `confirm_within_s`:
     * confirmed by the RAW's post-check or a person, else the device tool server puts the configuration back.
     */
    CONFIRM_WITHIN_S: positiveInt.pipe(z.number().int().min(5).max(3600)).default(120),
    RELAY_TOOLS_TOKEN: optionalString,
    SEARCH_UPSTREAM_URL: optionalUrl,
    SEARCH_UPSTREAM_TOKEN: optionalString,
    SEARCH_UPSTREAM_TIMEOUT_MS: positiveInt.default(30_000),
    /** The audit stream to Splunk: the HTTP Event Collector's base URL (https://splunk:8088) and its token. */
    SPLUNK_HEC_URL: optionalUrl,
    SPLUNK_HEC_TOKEN: optionalString,
    /** `on` when the token has indexer acknowledgement: an event counts as delivered only once Splunk has indexed it. */
    SPLUNK_HEC_ACK: z.enum(['on', 'off']).default('off'),
    /** The index the events go to; unset: the token's default index. */
    SPLUNK_HEC_INDEX: optionalString,
    /** The audit stream as RFC 5424 syslog: tcp://, tls://, or RELP (acknowledged) relp:// or relp+tls://, each host:port. */
    SYSLOG_URL: optionalString.pipe(z.string().regex(/^(tcp|tls|relp|relp\+tls):\/\/[^/\s]+:\d{1,5}\/?$/, 'expected tcp://, tls://, relp:// or relp+tls:// with host:port').optional()),
    /** PEM file of the CA that signed the syslog receiver's certificate (tls:// only); unset: the system's CAs. */
    SYSLOG_CA_FILE: optionalString,
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** `npm run relay`'s terminal: human lines (and the JSON log in RELAY_LOG_DIR/relay.log), or the JSON log itself. */
    RELAY_CONSOLE: z.enum(['auto', 'human', 'json']).default('auto'),
  })
  .superRefine((c, ctx) => {
    if (!isLoopbackHost(c.RELAY_HOST) && c.RELAY_ALLOWED_HOSTS.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['RELAY_ALLOWED_HOSTS'],
        message: `required when RELAY_HOST (${c.RELAY_HOST}) is not a loopback address: the host names Splunk and browsers use to reach the relay, comma-separated (e.g. relay.example.net)`,
      });
    }
    if (c.AGENT_URL && !c.AGENT_SERVER_PASSWORD) {
      ctx.addIssue({
        code: 'custom',
        path: ['AGENT_SERVER_PASSWORD'],
        message: 'required when AGENT_URL is set (the runtime is password protected)',
      });
    }
    if (c.DATABASE_URL && !c.TEAM_DECISION_KEY && !c.TEAM_DECISION_KEY_FILE) {
      ctx.addIssue({
        code: 'custom',
        path: ['TEAM_DECISION_KEY'],
        message: `required with DATABASE_URL: a secret of at least ${DECISION_KEY_MIN_CHARS} characters, the same on every relay of the team and kept out of the database (openssl rand -base64 32), or TEAM_DECISION_KEY_FILE naming a file that holds it`,
      });
    }
    if (c.TEAM_DECISION_KEY && c.TEAM_DECISION_KEY_FILE) {
      ctx.addIssue({ code: 'custom', path: ['TEAM_DECISION_KEY_FILE'], message: 'set TEAM_DECISION_KEY or TEAM_DECISION_KEY_FILE, not both' });
    }
    if (Boolean(c.SPLUNK_HEC_URL) !== Boolean(c.SPLUNK_HEC_TOKEN)) {
      ctx.addIssue({ code: 'custom', path: [c.SPLUNK_HEC_URL ? 'SPLUNK_HEC_TOKEN' : 'SPLUNK_HEC_URL'], message: 'SPLUNK_HEC_URL and SPLUNK_HEC_TOKEN go together: set both to send the audit stream to Splunk, or neither' });
    }
    if (Boolean(c.MSG_BOT_TOKEN) !== Boolean(c.MSG_ROOM_ID)) {
      ctx.addIssue({
        code: 'custom',
        path: [c.MSG_BOT_TOKEN ? 'MSG_ROOM_ID' : 'MSG_BOT_TOKEN'],
        message: 'MSG_BOT_TOKEN and MSG_ROOM_ID go together: set both to enable Webex, or neither',
      });
    }
  });

export type RelayConfig = z.output<typeof configSchema>;
export type RelayConfigInput = z.input<typeof configSchema>;

/** 127.0.0.0/8, ::1 and localhost: the names a relay on loopback answers to. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** An entry of RELAY_TRUSTED_PROXY: an IP address, a CIDR, or a named range fastify's trustProxy knows. */
function isProxyAddress(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [addr = '', bits, ...rest] = entry.split('/');
  const family = isIP(addr);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** Names whose values are never printed, logged or returned. */
export const SECRET_KEYS = [
  'AGENT_SERVER_PASSWORD',
  'WEBHOOK_SECRET',
  'MSG_BOT_TOKEN',
  'SLACK_APP_TOKEN',
  'SLACK_BOT_TOKEN',
  'RELAY_TOOLS_TOKEN',
  'SEARCH_UPSTREAM_TOKEN',
  'TEAM_RELAY_TOKEN',
  'DATABASE_URL',
  'DEVICE_MCP_TOKEN',
  'TEAM_DECISION_KEY',
  'SPLUNK_HEC_TOKEN',
  'PAGERDUTY_ROUTING_KEY',
  'OPSGENIE_API_KEY',
] as const satisfies readonly (keyof RelayConfig)[];
