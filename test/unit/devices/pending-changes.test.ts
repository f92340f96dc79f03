import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangeJournal, type JournalEntry } from '../../../src/adapters/devices/pending-changes';
import { parseInventory } from '../../../src/adapters/devices/inventory';
import { startDeviceServer } from '../../../src/adapters/devices/server';
import { captureLogger } from '../../helpers/capture-logger';
import { connectMcp } from '../../helpers/mcp-client';
import { tempDir } from '../../helpers/temp-dir';

const entry = (id: string): JournalEntry => ({
  change_id: id,
  device: 'R1',
  before: 'hostname R1\nrouter bgp 65001\n',
  lines: ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'],
  deadline: '2026-11-26T23:00:00.000Z',
});

describe('the change journal on disk', () => {
  it('keeps a pending entry until it is removed, and an outcome after', () => {
    const dir = join(tempDir('fault-relay-journal-'), 'state');
    const journal = new ChangeJournal(dir);
    journal.writePending(entry('chg-a'));
    // Read by a new journal on the same folder, as a restarted server would.
    expect(new ChangeJournal(dir).pending()).toEqual({ entries: [entry('chg-a')], broken: [] });
    journal.writeOutcome({ status: { change_id: 'chg-a', device: 'R1', state: 'rolled_back', deadline: entry('chg-a').deadline, reason: 'deadline' }, at: '2026-11-26T23:00:01.000Z' });
    journal.removePending('chg-a');
    expect(new ChangeJournal(dir).pending().entries).toEqual([]);
    expect(new ChangeJournal(dir).outcome('chg-a')).toMatchObject({ status: { state: 'rolled_back', reason: 'deadline' } });
    expect(journal.outcome('chg-unknown')).toBeUndefined();
    // Written whole under a temporary name and renamed: no temporary file is left behind.
    expect(readdirSync(dir).sort()).toEqual(['outcome-chg-a.json']);
  });

  it('reports a torn or corrupt entry with a clear error instead of throwing, and still reads the good ones', () => {
    const dir = join(tempDir('fault-relay-journal-'), 'state');
    const journal = new ChangeJournal(dir);
    journal.writePending(entry('chg-good'));
    writeFileSync(join(dir, 'pending-chg-torn.json'), '{"change_id": "chg-torn", "dev');
    writeFileSync(join(dir, 'pending-chg-shape.json'), JSON.stringify({ change_id: 'chg-shape', device: 'R1' }));
    const { entries, broken } = journal.pending();
    expect(entries).toEqual([entry('chg-good')]);
    expect(broken.map((b) => b.file)).toEqual([join(dir, 'pending-chg-shape.json'), join(dir, 'pending-chg-torn.json')]);
    expect(broken[0]!.error).toMatch(/journal entry .*pending-chg-shape\.json cannot be read \(before: .*lines: .*deadline: .*\): the device it names must be checked by hand/);
    expect(broken[1]!.error).toMatch(/journal entry .*pending-chg-torn\.json cannot be read \(.*JSON.*\)/);
  });

  it('a device server started on a folder with a corrupt entry starts, says which file, and answers', async () => {
    const dir = join(tempDir('fault-relay-journal-'), 'state');
    new ChangeJournal(dir);
    writeFileSync(join(dir, 'pending-chg-torn.json'), '{"change_id": "chg-torn", "dev');
    const inventory = parseInventory(
      'known_hosts: ./known_hosts\ndevices:\n  - name: R1\n    host: 127.0.0.1\n    port: 1\n    platform: frr\n    username: netops\n    credential: { agent: true }\n',
      join(dir, 'inventory.yaml'),
    );
    const { logger, text } = captureLogger();
    const server = await startDeviceServer({ inventory, port: 0, stateDir: dir, logger });
    try {
      expect(text()).toContain('pending-chg-torn.json cannot be read');
      const mcp = await connectMcp(server.mcpUrl, server.token);
      const status = await mcp.call('change_status', { device: 'R1', change_id: 'chg-torn' });
      expect(status.text).toBe('[not_pending] change chg-torn is unknown on R1');
      await mcp.close();
    } finally {
      await server.stop();
    }
  });
});

describe('a restart after a decision was recorded but its pending entry not yet cleared', () => {
  it('keeps the decision: a confirmed change is not rolled back, and nothing is sent to the device', async () => {
    const dir = join(tempDir('fault-relay-journal-'), 'state');
    const journal = new ChangeJournal(dir);
    journal.writePending(entry('chg-kept'));
    journal.writeOutcome({ status: { change_id: 'chg-kept', device: 'R1', state: 'confirmed', deadline: entry('chg-kept').deadline }, at: '2026-11-26T22:59:00.000Z' });
    // R1 answers on no port: had the server tried to roll back, the status would say rollback_failed.
    const inventory = parseInventory(
      'known_hosts: ./known_hosts\ndevices:\n  - name: R1\n    host: 127.0.0.1\n    port: 1\n    platform: frr\n    username: netops\n    credential: { agent: true }\n',
      join(dir, 'inventory.yaml'),
    );
    const server = await startDeviceServer({ inventory, port: 0, stateDir: dir });
    try {
      expect(server.service.changes.status('R1', 'chg-kept')).toMatchObject({ state: 'confirmed' });
      expect(journal.pending().entries).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});
