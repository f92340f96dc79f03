import type { Incident } from '../../../src/core/incidents/model';
import { loadConfig } from '../../../src/config/load';
import { setUpPaging } from '../../../src/adapters/paging/setup';
import type { EscalationStep } from '../../../src/core/policy/schema';
import { onTestFinished } from 'vitest';
import { fakeOpsgenie, fakePagerDuty } from '../../fakes/pagers';
import { silent } from '../../helpers/relay';
import { tempDir } from '../../helpers/temp-dir';
import { inMemoryIncidents, manualClock } from '../incidents/in-memory-incidents';

export const ROUTING_KEY = 'pd-routing-key-0123456789abcdef';
export const GENIE_KEY = 'genie-key-0123456789';
export const MIN = 60_000;
export const LINES_SHA = 'ab'.repeat(32);

export const CHAIN: EscalationStep[] = [
  { after: 5 * MIN, notify: 'remind' },
  { after: 10 * MIN, notify: 'pagerduty', to: 'noc-oncall' },
  { after: 20 * MIN, notify: 'opsgenie', to: 'neteng-oncall' },
];

/** The relay's incidents on a pinned clock, the paging of a relay with both pagers, and the two fakes. */
export async function pagingStand(steps: EscalationStep[] = CHAIN, opts: { pagerDutyKnows?: string } = {}) {
  const clock = manualClock();
  const { incidents, running, bus } = inMemoryIncidents(clock);
  const pd = await fakePagerDuty(opts.pagerDutyKnows ?? ROUTING_KEY);
  const og = await fakeOpsgenie(GENIE_KEY);
  const config = loadConfig({ PAGERDUTY_ROUTING_KEY: ROUTING_KEY, PAGERDUTY_URL: pd.url, OPSGENIE_API_KEY: GENIE_KEY, OPSGENIE_URL: og.url, RELAY_PUBLIC_URL: 'https://relay.example.net', RELAY_DATA_DIR: tempDir('paging-data-') });
  const reminders: string[] = [];
  const paging = setUpPaging({ config, incidents, bus, clock, logger: silent, owns: () => true, remind: (_id, text) => reminders.push(text), steps: () => steps });
  paging.start();
  onTestFinished(() => paging.stop());
  const awaiting = (device = 'R1'): Incident => {
    const incident = running('ses_1', { device });
    const at = clock.now();
    return incidents.transition(incident.incident_id, 'request_approval', () => ({
      approval_request: {
        request_id: 'REQ-7KQ2-M9XD',
        summary: 'Re-activate the BGP neighbor',
        device,
        commands: ['router bgp 65001', 'neighbor 10.0.0.2 activate'],
        rollback: [],
        requested_at: at.toISOString(),
        expires_at: new Date(at.getTime() + 30 * MIN).toISOString(),
        status: 'pending',
        lines_sha256: LINES_SHA,
        channels: ['webex'],
        terminal_shown_at: null,
      },
    }));
  };
  /** Moves the pinned clock, then lets every page decided on the way be queued and sent. */
  const advance = async (ms: number) => {
    clock.advance(ms);
    await paging.settled();
  };
  const pages = (id: string) => incidents.timeline(id).filter((e) => e.type.startsWith('page.'));
  return { clock, incidents, running, paging, pd, og, reminders, awaiting, advance, pages };
}

