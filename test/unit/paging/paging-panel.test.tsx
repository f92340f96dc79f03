import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { PagingPanel } from '../../../renderer/components/paging-panel';

describe('the paging panel (/ui and the tray)', () => {
  it('says who acknowledged, and who was paged when', () => {
    const html = renderToStaticMarkup(
      <PagingPanel
        timeline={[
          { at: '2026-11-21T10:05:00.000Z', type: 'page.sent', message: 'Reminded', step: 0, pager: 'remind', action: 'remind' },
          { at: '2026-11-21T10:10:00.000Z', type: 'page.sent', message: 'Paged', step: 1, pager: 'pagerduty', action: 'trigger', to: 'noc-oncall' },
          { at: '2026-11-21T10:20:00.000Z', type: 'page.failed', message: 'failed', step: 2, pager: 'opsgenie', action: 'trigger', reason: 'HTTP 401' },
          { at: '2026-11-21T10:21:00.000Z', type: 'incident.acknowledged', message: 'Acknowledged', by: 'Ana Ruiz', channel: 'api' },
        ]}
      />,
    );
    const text = html.replace(/<[^>]+>/g, '');
    expect(text).toContain('Acknowledged by Ana Ruiz (api)');
    expect(text).toContain('reminded the operator channels');
    expect(text).toContain('paged PagerDuty (noc-oncall)');
    expect(text).toContain('paged Opsgenie: failed, HTTP 401');
  });

  it('shows nothing while nobody was paged or acknowledged', () => {
    expect(renderToStaticMarkup(<PagingPanel timeline={[{ at: '2026-11-21T10:00:00.000Z', type: 'alert.received', message: 'x' }]} />)).toBe('');
  });
});
