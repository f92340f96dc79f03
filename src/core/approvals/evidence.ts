import type { TimelineEntry } from '../incidents/model';
import { entries, isEntry } from '../events/timeline-entries';

export interface EvidenceItem {
  command: string;
  /** The output's non-empty lines, as the device printed them. */
  lines: string[];
}

/**
 * What the agents read on the device before asking: the last show commands that went through the
 * guard, with their output. Shown beside the lines to approve on every channel (window, card, terminal).
 */
export function evidenceOf(timeline: readonly TimelineEntry[], maxCommands = 4): EvidenceItem[] {
  return timeline
    .filter((e) => isEntry(e, entries.deviceExec) && typeof e.command === 'string')
    .slice(-maxCommands)
    .map((e) => ({
      command: `${typeof e.device === 'string' ? `${e.device}# ` : ''}${String(e.command)}`,
      lines: String(e.output ?? '')
        .replace(/\r/g, '')
        .split('\n')
        .filter((l) => l.trim() !== ''),
    }));
}
