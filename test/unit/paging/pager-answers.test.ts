import { describe, expect, it } from 'vitest';
import { MIN, ROUTING_KEY, pagingStand } from './paging-stand';

/** What the relay does with each answer of a pager: 202 sent, 429/5xx again later, 400 reported for good. */
describe('pager answers (fakes speaking the real wire protocol)', () => {
  it('waits out Retry-After on a 429, says so on /health meanwhile, then sends the page once', async () => {
    const s = await pagingStand([{ after: 10 * MIN, notify: 'pagerduty' }]);
    s.pd.answerNext({ status: 429, headers: { 'retry-after': '120' }, body: { status: 'throttle event', message: 'Requests for this service are arriving too quickly.' } });
    const { incident_id: id } = s.awaiting();
    await s.advance(10 * MIN);
    expect(s.pd.received.map((r) => r.status)).toEqual([429]);
    expect(s.paging.warnings()).toEqual([expect.stringMatching(/^PagerDuty could not be reached for a page \(HTTP 429: .*throttle event.*\) .*: 1 page\(s\) wait to be sent\.$/)]);
    await s.advance(119_000);
    expect(s.pd.received.map((r) => r.status)).toEqual([429]);
    await s.advance(1_000);
    expect(s.pd.received.map((r) => r.status)).toEqual([429, 202]);
    expect(s.pages(id).map((e) => e.type)).toEqual(['page.sent']);
    expect(s.paging.warnings()).toEqual([]);
    await s.advance(60 * MIN);
    expect(s.pd.accepted).toHaveLength(1);
  });

  it('reports a 400 on the timeline and /health with the pager\'s reason, and never sends it again', async () => {
    const s = await pagingStand([{ after: 10 * MIN, notify: 'pagerduty' }], { pagerDutyKnows: 'another-routing-key' });
    const { incident_id: id } = s.awaiting();
    await s.advance(10 * MIN);
    await s.advance(24 * 60 * MIN);
    expect(s.pd.received.map((r) => r.status)).toEqual([400]);
    const failed = s.pages(id);
    expect(failed).toMatchObject([{ type: 'page.failed', pager: 'pagerduty', step: 0, reason: expect.stringContaining("HTTP 400: {\"status\":\"invalid event\"") }]);
    const warnings = s.paging.warnings();
    expect(warnings).toEqual([expect.stringMatching(/^PagerDuty refused a page \(HTTP 400: .*'routing_key' is invalid.*\) at .*: check its key and the relay's log; it is not sent again\.$/)]);
    expect(JSON.stringify({ warnings, failed })).not.toContain(ROUTING_KEY);
  });

  it('retries a pager that is down (5xx) and sends the page when it is back', async () => {
    const s = await pagingStand([{ after: 10 * MIN, notify: 'opsgenie' }]);
    s.og.answerNext({ status: 503, body: { message: 'Service Unavailable' } }, { status: 502 });
    s.awaiting();
    await s.advance(10 * MIN);
    for (let i = 0; i < 2; i++) await s.advance(5 * MIN);
    expect(s.og.received.map((r) => r.status)).toEqual([503, 502, 202]);
  });
});
