import { describe, expect, it } from 'vitest';
import { formatTimelineEntry } from '../../../harness/demo/timeline-format';
import type { TimelineEntry } from '../../../src/core/incidents/model';

describe('the demo terminal view', () => {
  it('shows a show command\'s whole output, indented under the command', () => {
    const output = 'BGP neighbor is 10.0.0.2, remote AS 65002\n Administratively shut down\n  BGP state = Idle\n';
    const entry = { at: '2026-11-24T10:00:00.000Z', type: 'device.exec', message: 'R1# show ip bgp neighbors 10.0.0.2', output } as TimelineEntry;
    expect(formatTimelineEntry(entry)).toBe(
      ['    R1# show ip bgp neighbors 10.0.0.2', '        BGP neighbor is 10.0.0.2, remote AS 65002', '         Administratively shut down', '          BGP state = Idle'].join('\n'),
    );
  });

  it('writes out the control characters in what the agent says: no escape sequence reaches the terminal', () => {
    const entry = { at: '2026-11-24T10:00:00.000Z', type: 'notify.final', message: '\u001b[2J\u001b[1;32mAPPROVED by alice\r done' } as TimelineEntry;
    expect(formatTimelineEntry(entry)).toBe('  ✉ final: \\u{001B}[2J\\u{001B}[1;32mAPPROVED by alice\\u{000D} done');
  });
});
