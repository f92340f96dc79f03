/**
 * Posts Splunk-style fault alerts to a running relay, or creates a headed incident on it and
 * prints its prompt (--direct).
 *   npm run simulate -- [--api URL] [--device R1] [--neighbor 10.0.0.2] [--count N] [--direct] [--mode strict]
 */
import { parseArgs } from 'node:util';
import { buildSplunkAlert } from '../src/adapters/alert-sources/sample';
import { cli, type Fail } from './cli';
import { relayPoster } from './relay-post';

const HELP = `Usage: npm run simulate -- [options]
  --api URL         relay base URL (default $RELAY_URL or http://127.0.0.1:8080)
  --secret S        bearer secret (default $WEBHOOK_SECRET)
  --alert ID        alert definition (default AD000002)
  --device NAME     device hostname (default R1)
  --neighbor IP     BGP neighbor (default 10.0.0.2)
  --vrf NAME        VRF of the neighbor (default: the global table)
  --as N            neighbor AS (default 65002)
  --kb-mode MODE    quick | standard | deep
  --count N         send N alerts at once (a storm; duplicates fold into one incident)
  --direct          create a headed incident on the relay and print its prompt, to paste
                    into opencode's terminal UI (the relay must be running)
  --mode MODE       strict | hybrid, for --direct (default: the relay's REMEDIATION_MODE)`;

const tool = cli('simulate', HELP);
const fail: Fail = tool.fail;
const parse = tool.parse;
const args = parse(() =>
  parseArgs({
    options: {
      api: { type: 'string' },
      secret: { type: 'string' },
      alert: { type: 'string' },
      device: { type: 'string' },
      neighbor: { type: 'string' },
      vrf: { type: 'string' },
      as: { type: 'string' },
      'kb-mode': { type: 'string' },
      count: { type: 'string' },
      direct: { type: 'boolean' },
      mode: { type: 'string' },
      'incident-id': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values,
);

const kbMode = args['kb-mode'];
if (kbMode && !['quick', 'standard', 'deep'].includes(kbMode)) fail('--kb-mode must be quick, standard or deep');
const body = buildSplunkAlert({
  alertDefId: args.alert,
  device: args.device,
  neighbor: args.neighbor,
  vrf: args.vrf,
  neighborAs: args.as,
  kbQueryMode: kbMode as 'quick' | 'standard' | 'deep' | undefined,
});

const api = (args.api ?? process.env.RELAY_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const secret = args.secret ?? process.env.WEBHOOK_SECRET;
const count = Number(args.count ?? '1');
if (!Number.isInteger(count) || count < 1 || count > 10_000) fail('--count must be a whole number from 1 to 10000');

const postJson = relayPoster({ api, secret, fail });

if (args.direct) {
  if (args['incident-id']) fail('--incident-id is gone: headed incident ids are assigned by the relay');
  const mode = args.mode;
  if (mode !== undefined && mode !== 'strict' && mode !== 'hybrid') fail('--mode must be strict or hybrid');
  const created = await postJson(`/headed${mode ? `?mode=${mode}` : ''}`, body, [201, 200]);
  if (created.joined) {
    // No prompt to paste: its run is under way on the relay, and a pasted copy would ask for the same change again.
    process.stderr.write(`The fault already has the open incident ${created.incident_id} on ${created.device_hostname}, with its run under way: joined it, no prompt to paste. Decide its approval at ${api}/ui, in the tray or over the API.\n`);
    process.exit(0);
  }
  process.stderr.write(
    `Headed incident ${created.incident_id} on ${created.device_hostname} created on ${api}. Paste the prompt below into opencode's terminal UI ` +
      `(agent network-troubleshooter); when it asks, type APPROVED or DENIED.\n`,
  );
  process.stdout.write(`${created.prompt}\n`);
  process.exit(0);
}

async function postOne(): Promise<void> {
  const json = await postJson('/fault-alert', body, 202);
  const status = String(json.status);
  const session = json.session_id ?? '(none yet)';
  const extra = status === 'duplicate' ? ` occurrences ${json.occurrences}` : status === 'queued' ? ' (not yet taken by the runtime; the relay delivers it as soon as it is)' : '';
  process.stdout.write(`${json.incident_id} ${status} session ${session}${extra}\n`);
}

await Promise.all(Array.from({ length: count }, postOne));
