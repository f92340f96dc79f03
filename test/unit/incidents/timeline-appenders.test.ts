import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTimelineAppenders } from '../../../src/core/incidents/timeline-appenders';
import { tempDir } from '../../helpers/temp-dir';

const openFiles = () => readdirSync('/proc/self/fd').length;

describe.runIf(process.platform === 'linux')('timeline appenders', () => {
  it('keeps every line of every timeline, in order, with at most `max` files open', () => {
    const dir = tempDir('fault-relay-appenders-');
    const appenders = createTimelineAppenders((id) => join(dir, `${id}.jsonl`), 2);
    const before = openFiles();
    for (let n = 0; n < 30; n++) {
      appenders.append(`INC-${n % 3}`, `line ${n}\n`);
      expect(openFiles() - before).toBeLessThanOrEqual(2);
    }
    for (let k = 0; k < 3; k++) {
      const expected = Array.from({ length: 10 }, (_, i) => `line ${i * 3 + k}\n`).join('');
      expect(readFileSync(join(dir, `INC-${k}.jsonl`), 'utf8')).toBe(expected);
    }
    appenders.closeAll();
    expect(openFiles()).toBe(before);
  });

  it('closes a timeline before it is removed, and a later line starts a new file', () => {
    const dir = tempDir('fault-relay-appenders-');
    const appenders = createTimelineAppenders((id) => join(dir, `${id}.jsonl`));
    const before = openFiles();
    appenders.append('INC-1', 'first\n');
    appenders.close('INC-1');
    expect(openFiles()).toBe(before);
    appenders.append('INC-1', 'second\n');
    expect(readFileSync(join(dir, 'INC-1.jsonl'), 'utf8')).toBe('first\nsecond\n');
    appenders.closeAll();
  });
});
