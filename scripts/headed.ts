/**
 * Headed mode in one command: creates the headed incident on the running relay, starts its run
 * on the relay's own runtime with the prompt in place, and opens opencode's terminal UI on it.
 *   npm run headed -- [--device R1 --neighbor 10.0.0.2 | --incident INC-…] [--mode strict|hybrid]
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { userInfo } from 'node:os';
import { startTerminalProxy } from '../src/relay/headed/terminal-proxy';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { resolveOpencodeBinary } from '../src/adapters/agent/opencode-binary';
import { createRuntimeTmpdir } from '../src/adapters/agent/runtime-tmpdir';
import { buildSplunkAlert } from '../src/adapters/alert-sources/sample';
import { readRuntimeAttach, type RuntimeAttach } from '../src/relay/runtime-attach-file';
import { headedResponseSchema, type HeadedResponse } from '../src/relay/routes/headed';
import { cli } from './cli';
import { relayPoster } from './relay-post';
import { errorOf, errorText } from '../src/core/error-body';

const HELP = `Usage: npm run headed -- [options]
  --device NAME     device hostname (default R1)
  --neighbor IP     BGP neighbor (default 10.0.0.2)
  --vrf NAME        VRF of the neighbor (default: the global table)
  --as N            neighbor AS (default 65002)
  --alert ID        alert definition (default AD000002)
  --incident ID     take over an existing incident (INC-…) by hand instead
  --mode MODE       strict | hybrid (default: the relay's REMEDIATION_MODE)
  --api URL         relay base URL (default $RELAY_URL or http://127.0.0.1:8080)
  --secret S        bearer secret (default $WEBHOOK_SECRET)
  --data-dir DIR    the relay's data folder (default $RELAY_DATA_DIR or .relay-data)
  --print           print the prompt instead of opening the terminal UI

Needs the relay running on this machine with its embedded runtime (npm run relay, or the tray).`;

const { fail, parse } = cli('headed', HELP);
const args = parse(() =>
  parseArgs({
    options: {
      device: { type: 'string' },
      neighbor: { type: 'string' },
      vrf: { type: 'string' },
      as: { type: 'string' },
      alert: { type: 'string' },
      incident: { type: 'string' },
      mode: { type: 'string' },
      api: { type: 'string' },
      secret: { type: 'string' },
      'data-dir': { type: 'string' },
      print: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values,
);
if (args.mode !== undefined && args.mode !== 'strict' && args.mode !== 'hybrid') fail('--mode must be strict or hybrid');
if (args.incident && (args.device || args.neighbor || args.vrf || args.as || args.alert)) fail('--incident takes over an existing incident: give it alone, without the alert options');

const dataDir = resolve(args['data-dir'] ?? process.env.RELAY_DATA_DIR ?? '.relay-data');
const attach = readRuntimeAttach(dataDir);
const api = (args.api ?? process.env.RELAY_URL ?? (attach.ok ? attach.info.relay_url : 'http://127.0.0.1:8080')).replace(/\/$/, '');
const secret = args.secret ?? process.env.WEBHOOK_SECRET;

const postToRelay = relayPoster({ api, secret, fail });

async function createHeaded(): Promise<HeadedResponse> {
  const query = args.mode ? `?mode=${args.mode}` : '';
  const path = args.incident ? `/headed/from/${encodeURIComponent(args.incident)}${query}` : `/headed${query}`;
  const body = args.incident ? {} : buildSplunkAlert({ alertDefId: args.alert, device: args.device, neighbor: args.neighbor, vrf: args.vrf, neighborAs: args.as });
  // 200: the fault already had an open incident, which this run joins (201: a new headed incident).
  return headedResponseSchema.parse(await postToRelay(path, body, [201, 200]));
}

/** Starts the run on the relay's runtime, as the terminal UI would, so the UI opens on it. */
async function startSession(info: RuntimeAttach, headed: HeadedResponse): Promise<string> {
  const auth = `Basic ${Buffer.from(`${info.username}:${info.password}`).toString('base64')}`;
  const call = async (path: string, payload: unknown) => {
    const res = await request(`${info.agent_url}${path}`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(payload) });
    const text = await res.body.text();
    if (res.statusCode >= 300) fail(`the agent runtime answered ${res.statusCode} to ${path}: ${text.slice(0, 200)}`);
    return text ? (JSON.parse(text) as { id?: string }) : {};
  };
  const session = await call('/session', { title: `${headed.incident_id} headed ${headed.device_hostname}` });
  if (!session.id) fail('the agent runtime created no session');
  // Bound before the run starts: the relay writes the approval question into this session, and
  // takes typed decisions for this incident from this terminal only.
  const bound = await toRelay(info, `/headed/${encodeURIComponent(headed.incident_id)}/terminal`, { session_id: session.id });
  if (bound.status !== 200) fail(`the relay did not bind this terminal (${bound.status}): ${bound.refusal}`);
  await call(`/session/${session.id}/prompt_async`, { agent: 'network-troubleshooter', parts: [{ type: 'text', text: headed.prompt }] });
  return session.id as string;
}

/** The relay's terminal endpoints, with the terminal credential from its data folder (never the runtime's). */
async function toRelay(info: RuntimeAttach, path: string, payload: unknown, opts: { failRefused?: boolean } = {}): Promise<{ status: number; refusal: string }> {
  const res = await request(`${api}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${info.terminal_secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  const refusal = errorOf(await res.body.json().catch(() => ({})))?.message ?? '';
  if ((opts.failRefused ?? true) && (res.statusCode === 401 || res.statusCode === 404)) fail(`the relay refused the terminal (${res.statusCode}): ${refusal}`);
  return { status: res.statusCode, refusal };
}

function osUser(): string | undefined {
  const fromEnv = process.env.USER || process.env.LOGNAME || process.env.USERNAME;
  if (fromEnv) return fromEnv;
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}

const headed = await createHeaded();
if (headed.joined) {
  // Its run is under way on the relay, with its own approval: a second run would ask for the same change again.
  process.stderr.write(
    `The fault already has the open incident ${headed.incident_id} on ${headed.device_hostname}, with its run under way: joined it, no second run started.\n` +
      `Follow it and decide its approval at ${api}/ui (the sign-in link npm run relay printed), in the tray, or over the API.\n`,
  );
  process.exit(0);
}
if (args.print || !attach.ok) {
  if (!attach.ok && !args.print) process.stderr.write(`headed: cannot open the terminal UI here (${attach.reason}); the prompt follows.\n`);
  process.stderr.write(`Headed incident ${headed.incident_id} on ${headed.device_hostname}. Paste the prompt into opencode's terminal UI (agent network-troubleshooter); when it asks, type APPROVED or DENIED.\n`);
  process.stdout.write(`${headed.prompt}\n`);
  process.exit(0);
}

const sessionId = await startSession(attach.info, headed);
const info = attach.info;
// opencode's terminal UI attaches through this process: what the operator types is reported to the
// relay (which alone decides what it means) before the agent sees it.
const proxy = await startTerminalProxy({
  target: info.agent_url,
  sessionId,
  onTyped: async (text) => {
    const user = osUser();
    await toRelay(info, `/headed/${encodeURIComponent(headed.incident_id)}/terminal/input`, { session_id: sessionId, text, ...(user ? { user } : {}) });
  },
});
process.stderr.write(
  `Headed incident ${headed.incident_id} on ${headed.device_hostname}: the run starts in opencode's terminal UI.\n` +
    'When the relay shows an approval request, type APPROVED or DENIED as your whole message (": reason" may follow). ' +
    'Leave with Ctrl-C; the incident stays on the relay and an open approval expires after APPROVAL_TTL.\n',
);
// The password goes by environment, not argv, so it is not in the process list.
// opencode's terminal UI unpacks a 13 MB native library into its TMPDIR on every start and leaves it
// there: it gets a folder of its own, removed when this ends (or swept by the next runtime start).
const tuiTmp = createRuntimeTmpdir();
process.on('exit', () => tuiTmp.remove());
const tui = spawn(resolveOpencodeBinary(), ['attach', proxy.url, '--dir', attach.info.project_dir, '--session', sessionId], {
  stdio: 'inherit',
  env: { ...process.env, TMPDIR: tuiTmp.path, OPENCODE_SERVER_USERNAME: attach.info.username, OPENCODE_SERVER_PASSWORD: attach.info.password },
});
/**
 * The run this terminal started ends with it (Ctrl-C, a closed window, a kill): the relay records
 * why and aborts the session on the runtime. Left running, it would go on with nobody at the terminal.
 */
async function endRun(): Promise<void> {
  try {
    const { status, refusal } = await toRelay(info, `/headed/${encodeURIComponent(headed.incident_id)}/terminal/end`, { session_id: sessionId }, { failRefused: false });
    if (status === 200) return void process.stderr.write(`headed: the run of ${headed.incident_id} was stopped.\n`);
    process.stderr.write(`headed: the relay did not stop the run (${status}: ${refusal}); stopping it on the runtime.\n`);
  } catch (error) {
    process.stderr.write(`headed: the relay is not reachable (${errorText(error)}); stopping the run on the runtime.\n`);
  }
  const auth = `Basic ${Buffer.from(`${info.username}:${info.password}`).toString('base64')}`;
  await request(`${info.agent_url}/session/${encodeURIComponent(sessionId)}/abort`, { method: 'POST', headers: { authorization: auth } })
    .then((res) => res.body.dump())
    .catch((error: unknown) => process.stderr.write(`headed: could not stop the run: ${errorText(error)}\n`));
}
tui.on('exit', (code, signal) => void Promise.allSettled([endRun(), proxy.stop()]).finally(() => process.exit(signal ? 130 : (code ?? 0))));
// A closed terminal, Ctrl-C reaching this process or a kill ends the UI first, then this process through its exit (and the folder with it).
for (const sig of ['SIGHUP', 'SIGTERM', 'SIGINT'] as const) {
  process.on(sig, () => {
    tui.kill(sig);
    setTimeout(() => tui.kill('SIGKILL'), 3_000).unref();
  });
}
