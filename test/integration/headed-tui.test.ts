import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentLogPath } from '../../harness/demo/brain';
import { isTerminal } from '../../src/core/incidents/model';
import { startDemoStack, type DemoStack } from '../../harness/demo/demo-stack';
import { observerClient, repoRoot, waitUntil } from '../helpers/opencode';
import { silent } from '../helpers/relay';

/**
 * `npm run headed` as an engineer uses it: opencode's real terminal UI in tmux, attached to the
 * relay's runtime, the run already started; the operator reads the approval question on screen
 * and types the answer. Only the model is scripted (the demo brain).
 */
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) console.warn('headed-tui: skipped, tmux is not installed (apt-get install -y tmux)');

describe.skipIf(!hasTmux)('npm run headed in a real terminal', () => {
  let stack: DemoStack;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'headed-tui-'));
  const tmux = `headed-${process.pid}`;
  const screen = () => execFileSync('tmux', ['capture-pane', '-t', tmux, '-p', '-J', '-S', '-400'], { encoding: 'utf8' });

  beforeAll(async () => {
    // With the relay's own snapshot setting: Ctrl-C stops the run mid-step, and without snapshots opencode ends such a run differently.
    stack = await startDemoStack({ projectDir: repoRoot, dataDir, logDir: path.join(dataDir, 'logs'), logger: silent, convergeDelayMs: 0, maxSleepS: 0, snapshots: true });
    await stack.toolsConnected();
  }, 240_000);
  afterAll(async () => {
    spawnSync('tmux', ['kill-session', '-t', tmux]);
    // The agent writes its own log into the project, as in a real run.
    for (const incident of stack?.relay.relay.incidents.list() ?? []) rmSync(agentLogPath(repoRoot, incident), { force: true });
    await stack?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('opens the terminal UI on the running headed incident, shows the question, and the typed APPROVED is the decision', async () => {
    stack.lab!.lab.reset();
    stack.lab!.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
    const relayData = path.join(dataDir, 'relay');
    const tuiTmp = path.join(dataDir, 'tmp');
    mkdirSync(tuiTmp);
    execFileSync('tmux', [
      'new-session', '-d', '-s', tmux, '-x', '150', '-y', '60',
      `cd ${repoRoot} && TMPDIR=${tuiTmp} ${process.execPath} --import tsx scripts/headed.ts --data-dir ${relayData} --device R1 --neighbor 10.0.0.2; sleep 600`,
    ]);
    const relay = stack.relay.relay;
    const headed = () => relay.incidents.list().find((i) => i.kind === 'headed');
    // A hang guard: the run reads the artifacts, the KB and the device first; beside four other suites on two cores that took over 150 s.
    await waitUntil(() => headed()?.approval_request?.status === 'pending', 'the headed run asks for approval', { timeoutMs: 360_000 });
    await waitUntil(() => /APPROVAL NEEDED/.test(screen()) && /Type APPROVED or DENIED/.test(screen()), 'the question is on screen', { timeoutMs: 60_000 });
    const shown = screen();
    // Written into the session by the relay itself (never the model's retelling): its request id, the lines first.
    expect(shown).toContain(`APPROVAL NEEDED — ${headed()!.incident_id} on R1 — request ${headed()!.approval_request!.request_id}`);
    // The relay records that it showed the question once opencode has answered its write, which under
    // load can come after the screen already shows it: wait for the record (a hang guard).
    await waitUntil(() => headed()!.approval_request!.terminal_shown_at != null, 'the relay records the question as shown', { timeoutMs: 60_000 });
    expect(shown).toMatch(/ {4}no neighbor 10\.0\.0\.2 shutdown/);
    expect(shown).toContain(`lines hash ${headed()!.approval_request!.lines_sha256.slice(0, 12)}`);
    // What the card shows, the terminal shows: the evidence too.
    expect(shown).toContain('Evidence (what the agents read on the device):');
    expect(shown).toMatch(/R1# show ip bgp neighbors 10\.0\.0\.2/);
    expect(stack.lab!.lab.configChanges()).toBe(0);

    execFileSync('tmux', ['send-keys', '-t', tmux, '-l', 'APPROVED']);
    execFileSync('tmux', ['send-keys', '-t', tmux, 'Enter']);
    await waitUntil(() => headed()?.state === 'resolved', 'the headed incident is resolved', { timeoutMs: 120_000 });
    // Reported by npm run headed's own seat between the terminal UI and the runtime, with the terminal credential.
    expect(headed()).toMatchObject({ approval: { decision: 'APPROVED', channel: 'terminal', by: expect.stringMatching(/ \(terminal\)$/) }, application: { status: 'applied', device: 'R1' } });
    expect(stack.lab!.lab.configChanges()).toBe(1);

    // The terminal UI unpacked its native library into a temp folder of npm run headed's; closing the
    // terminal takes both away.
    const libraries = () => (readdirSync(tuiTmp, { recursive: true }) as string[]).filter((name) => name.endsWith('.so'));
    expect(libraries()).not.toEqual([]);
    spawnSync('tmux', ['kill-session', '-t', tmux]);
    await waitUntil(() => libraries().length === 0, 'the terminal UI left no library in the temp folder');
  }, 600_000);

  it('Ctrl-C in the terminal ends the run it started: the runtime stops it and the timeline says why', async () => {
    stack.lab!.lab.reset();
    stack.lab!.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
    const relay = stack.relay.relay;
    const before = new Set(relay.incidents.list().map((i) => i.incident_id));
    execFileSync('tmux', [
      'new-session', '-d', '-s', tmux, '-x', '150', '-y', '60',
      `cd ${repoRoot} && ${process.execPath} --import tsx scripts/headed.ts --data-dir ${path.join(dataDir, 'relay')} --device R1 --neighbor 10.0.0.2; echo "headed exited $?"; sleep 600`,
    ]);
    const headed = () => relay.incidents.list().find((i) => i.kind === 'headed' && !before.has(i.incident_id));
    const runtime = observerClient(stack.relay.embedded!.endpoint);
    // Mid-run: the agents are at work and the relay waits for a decision (a hang guard, as above).
    await waitUntil(() => headed()?.approval_request?.status === 'pending', 'the headed run asks for approval', { timeoutMs: 360_000 });
    const sessionId = headed()!.session_id!;
    await waitUntil(() => /APPROVAL NEEDED/.test(screen()), 'the question is on screen', { timeoutMs: 60_000 });

    execFileSync('tmux', ['send-keys', '-t', tmux, 'C-c']);
    await waitUntil(() => /headed exited/.test(screen()), 'npm run headed ends on Ctrl-C', { timeoutMs: 30_000 });
    expect(screen()).toContain(`headed: the run of ${headed()!.incident_id} was stopped.`);
    expect(relay.incidents.timeline(headed()!.incident_id).map((e) => e.type)).toContain('headed.ended');
    // The runtime no longer runs the session, and the agents do nothing more in it.
    await waitUntil(async () => !(sessionId in (await runtime.sessionStatus())), 'the session is no longer busy on the runtime', { timeoutMs: 30_000 });
    const messages = (await runtime.getMessages(sessionId)).length;
    await waitUntil(() => isTerminal(relay.incidents.get(headed()!.incident_id)!.state), 'the incident ends', { timeoutMs: 30_000 });
    expect(relay.incidents.get(headed()!.incident_id)).toMatchObject({ state: 'failed', outcome: { summary: expect.stringMatching(/Abort/) } });
    expect((await runtime.getMessages(sessionId)).length).toBe(messages);
    expect(stack.lab!.lab.configChanges()).toBe(0);
    await runtime.close();
  }, 600_000);
});
