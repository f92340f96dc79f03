import { describe, expect, it } from 'vitest';
import { STREAMED_EVENTS, relayEvents } from '../../../src/core/events/relay-events';
import { entries, kindOfType } from '../../../src/core/events/timeline-entries';
import { kindOf } from '../../../renderer/components/timeline-kind';
import { UI_EVENT_NAMES } from '../../../renderer/bridge/ui-event-schema';
import { inMemoryIncidents, manualClock } from '../incidents/in-memory-incidents';

describe('timeline entries, defined once', () => {
  it('names each entry type once', () => {
    const names = Object.values(entries).map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('writes an entry under its definition, and the tray and /ui read its kind from it', () => {
    const t = inMemoryIncidents(manualClock('2026-11-21T10:00:00.000Z'));
    const incident = t.running('ses_1');
    const entry = t.incidents.record(incident.incident_id, entries.deviceRefused, 'config_cli refused: not approved', { tool: 'config_cli', reason: 'not approved' });
    expect(entry).toEqual({ at: '2026-11-21T10:00:00.000Z', type: 'device.refused', message: 'config_cli refused: not approved', tool: 'config_cli', reason: 'not approved' });
    expect(kindOf(entry)).toBe('error');
    expect(kindOf({ ...entry, type: entries.agentText.name })).toBe('message');
    expect(kindOf({ ...entry, type: entries.approvalPreviewRefused.name })).toBe('approval');
  });

  it('reads an entry type this build does not write (an older store) as the runtime’s', () => {
    expect(kindOfType('something.retired')).toBe('runtime');
  });
});

describe('relay events, defined once', () => {
  it('streams every UI event but the runtime health, and the renderer parses exactly those after the snapshot', () => {
    expect(STREAMED_EVENTS).toEqual(['incident.created', 'incident.updated', 'incident.timeline', 'approval.requested', 'approval.decided']);
    expect(Object.values(relayEvents).map((d) => d.name)).toContain('health.runtime');
    expect(UI_EVENT_NAMES).toEqual(['snapshot', ...STREAMED_EVENTS]);
  });
});
