import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeFilesError } from '../../src/adapters/agent/integrity';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { startDemoStack, type DemoStack } from '../../harness/demo/demo-stack';
import { untilIncident } from '../helpers/incident-waits';
import { repoRoot } from '../helpers/opencode';
import { silent } from '../helpers/relay';
import { tempDir } from '../helpers/temp-dir';
import { decideAs } from '../helpers/decide-as';

/**
 * The relay's check of its runtime's files on the real parts (relay, embedded opencode, lab, KB,
 * the demo brain as the model), in a copy of the project so the repository's own files are never
 * touched: a plugin stops the runtime from starting; an agent file changed while the relay runs
 * holds the next run (timeline, /health) until it is restored, and then the run goes by itself,
 * its RAW waits made through the relay's wait tool.
 */
let dir: string;
let dataDir: string;
let stack: DemoStack;
const AGENT_FILE = '.opencode/agent/fault-remediation.md';

const start = () =>
  startDemoStack({ projectDir: dir, dataDir, logDir: path.join(dataDir, 'logs'), logger: silent, convergeDelayMs: 0, maxSleepS: 1, approvalChannels: ['desktop'] });

beforeAll(() => {
  dir = tempDir('runtime-files-');
  dataDir = tempDir('runtime-files-data-');
  cpSync(path.join(repoRoot, '.opencode/agent'), path.join(dir, '.opencode/agent'), { recursive: true });
  cpSync(path.join(repoRoot, 'opencode.json'), path.join(dir, 'opencode.json'));
  cpSync(path.join(repoRoot, 'intelligence-artifacts'), path.join(dir, 'intelligence-artifacts'), { recursive: true });
  // Read-only parts the runtime needs from the project (the KB's stdio server and its vault).
  for (const shared of ['node_modules', 'src', 'kb', 'package.json', 'tsconfig.json']) symlinkSync(path.join(repoRoot, shared), path.join(dir, shared));
  // Its own git root, as the repository is: opencode matches path rules relative to the worktree.
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('commit', '-q', '--allow-empty', '-m', 'project copy');
});

afterAll(async () => {
  await stack?.stop();
});

const relay = () => stack.relay.relay;
const health = async () => (await (await request(`${stack.relay.url}/health`)).body.json()) as { warnings: string[] };

describe('the relay checks its runtime files before starting the runtime and before each run', () => {
  it('does not start the runtime while a plugin is present, in one line naming it', async () => {
    mkdirSync(path.join(dir, '.opencode/plugins'));
    writeFileSync(path.join(dir, '.opencode/plugins/operator-input.js'), 'export const OperatorInput = async () => ({});\n');
    const refused = await start().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RuntimeFilesError);
    expect((refused as Error).message).toMatch(/^the agent runtime was not started: \.opencode\/plugins\/operator-input\.js is a runtime plugin, and the relay ships none/);
    expect((refused as Error).message).not.toContain('\n');
    rmSync(path.join(dir, '.opencode/plugins'), { recursive: true });
  }, 120_000);

  it('holds a run while an agent file differs, naming it on the timeline and /health, and lets it go once restored', async () => {
    stack = await start();
    await stack.toolsConnected();
    stack.lab!.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
    const shipped = readFileSync(path.join(dir, AGENT_FILE));
    // As the issue saw it done: the agent file truncated (opencode would give it its defaults at the next start).
    writeFileSync(path.join(dir, AGENT_FILE), '');

    const res = await request(`${stack.relay.url}/fault-alert`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })) });
    const { status, incident_id: id } = (await res.body.json()) as { status: string; incident_id: string };
    expect(status).toBe('queued');
    const held = await untilIncident(relay(), id, (_i, tl) => tl.some((e) => e.type === 'delivery.held'));
    expect(held).toMatchObject({ state: 'queued', session_id: null });
    expect(relay().incidents.timeline(id).find((e) => e.type === 'delivery.held')?.message).toMatch(
      /^Not delivered: \.opencode\/agent\/fault-remediation\.md is changed \(sha256 [0-9a-f]{12}…, the relay ships [0-9a-f]{12}…\); restore it, or after an intended change run npm run runtime:manifest\. The incident stays queued/,
    );
    expect((await health()).warnings).toContainEqual(expect.stringMatching(/^Runs are held: \.opencode\/agent\/fault-remediation\.md is changed/));

    // Restored: nobody kicks the relay; its own recheck delivers the run, which then goes its whole way.
    writeFileSync(path.join(dir, AGENT_FILE), shipped);
    await untilIncident(relay(), id, (i) => i.state === 'awaiting_approval');
    expect((await health()).warnings.filter((w) => w.startsWith('Runs are held'))).toEqual([]);
    const types = relay().incidents.timeline(id).map((e) => e.type);
    expect(types.slice(types.indexOf('delivery.held'))).toEqual(expect.arrayContaining(['delivery.resumed', 'session.created', 'prompt.sent']));

    expect((await decideAs(relay(), id, 'APPROVED', 'alice')).status).toBe('accepted');
    const done = await untilIncident(relay(), id, (i) => i.state === 'resolved' || i.state === 'escalated' || i.state === 'failed');
    expect(done.state).toBe('resolved');
    // The RAW's wait after the repair went through the relay (no shell anywhere).
    const waits = relay().incidents.timeline(id).filter((e) => e.tool === 'relay_wait' && e.type === 'tool.completed');
    expect(waits.length).toBeGreaterThan(0);
    expect(relay().incidents.timeline(id).some((e) => e.tool === 'bash')).toBe(false);
  }, 240_000);
});
