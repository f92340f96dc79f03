import { describe, expect, it } from 'vitest';
import { INCIDENT_STATES, isTerminal, type Incident } from '../../../src/core/incidents/model';
import { INCIDENT_EVENTS, INCIDENT_TRANSITIONS, IncidentStateError, nextState } from '../../../src/core/incidents/state';
import { inMemoryIncidents } from './in-memory-incidents';

describe('the incident state table', () => {
  it('moves exactly as each row says, and refuses every pair it does not list', () => {
    const listed = new Map(INCIDENT_TRANSITIONS.map(([from, event, to]) => [`${from}/${event}`, to]));
    for (const from of INCIDENT_STATES) {
      for (const event of INCIDENT_EVENTS) {
        const step = nextState(from, event);
        const to = listed.get(`${from}/${event}`);
        if (to) expect(step).toEqual({ ok: true, next: to });
        else expect(step).toMatchObject({ ok: false, reason: expect.stringContaining(`that is ${from} cannot`) });
      }
    }
  });

  it('never leaves a finished incident, and reaches the outcomes only from a run that started', () => {
    for (const [from, , to] of INCIDENT_TRANSITIONS) {
      expect(isTerminal(from)).toBe(false);
      if (isTerminal(to) && to !== 'failed') expect(from).not.toBe('queued');
    }
  });

  it('follows the seed path queued → running → awaiting_approval → approved → running → resolved', () => {
    const path: Array<[Parameters<typeof nextState>[1], Incident['state']]> = [
      ['deliver', 'running'],
      ['request_approval', 'awaiting_approval'],
      ['approve', 'approved'],
      ['resume', 'running'],
      ['resolve', 'resolved'],
    ];
    let state: Incident['state'] = 'queued';
    for (const [event, expected] of path) {
      const step = nextState(state, event);
      expect(step).toEqual({ ok: true, next: expected });
      if (step.ok) state = step.next;
    }
  });
});

describe('Incidents.transition, the one writer of the state', () => {
  it('moves the state, stores the change with it, and says so on the timeline and the bus', () => {
    const t = inMemoryIncidents();
    const seen: string[] = [];
    t.bus.subscribe('incident.updated', ({ incident, previous_state }) => seen.push(`${previous_state}→${incident.state}`));
    const incident = t.running('ses_1');
    const done = t.incidents.transition(incident.incident_id, 'resolve', () => ({ outcome: { kind: 'resolved', summary: 'up again', at: 'x' } }));
    expect(done).toMatchObject({ state: 'resolved', outcome: { summary: 'up again' } });
    expect(t.incidents.timeline(incident.incident_id).filter((e) => e.type === 'state.changed').map((e) => e.message)).toEqual(['queued → running', 'running → resolved']);
    expect(seen).toEqual(['queued→running', 'running→resolved']);
  });

  it('refuses a step the table does not have and writes nothing: a second outcome, a late decision, a requeue of a finished run', () => {
    const t = inMemoryIncidents();
    const incident = t.running('ses_1');
    t.incidents.transition(incident.incident_id, 'escalate', () => ({ outcome: { kind: 'escalated', summary: 'first', at: 'x' } }));
    const before = t.incidents.get(incident.incident_id);
    const lines = t.incidents.timeline(incident.incident_id).length;
    for (const event of ['resolve', 'approve', 'requeue', 'deliver'] as const) {
      expect(t.incidents.can(incident.incident_id, event)).toBe(false);
      expect(() => t.incidents.transition(incident.incident_id, event, () => ({ outcome: { kind: 'resolved', summary: 'second', at: 'y' } }))).toThrow(IncidentStateError);
    }
    expect(t.incidents.get(incident.incident_id)).toEqual(before);
    expect(t.incidents.timeline(incident.incident_id)).toHaveLength(lines);
  });

  it('update cannot change the state, even when a caller gets past the types', () => {
    const t = inMemoryIncidents();
    const incident = t.running('ses_1');
    const sneaky = () => ({ state: 'resolved' }) as unknown as { progress: null };
    expect(() => t.incidents.update(incident.incident_id, sneaky)).toThrow(/only through a transition/);
    expect(t.incidents.get(incident.incident_id)?.state).toBe('running');
  });
});
