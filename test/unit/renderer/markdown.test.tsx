import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Markdown } from '../../../renderer/lib/markdown';

const html = (text: string) => renderToStaticMarkup(<Markdown text={text} />);

describe('agent Markdown in the timeline', () => {
  it('renders the forms agents write: headings, lists, code, bold, links', () => {
    const out = html('## Diagnosis\n- neighbor **10.0.0.2** is `Idle`\n- shut down by admin\n\nSee [the runbook](https://kb.example.net/AD000002).\n\n```\nshow ip bgp summary\n```');
    expect(out).toContain('<h5>Diagnosis</h5>');
    expect(out).toContain('<ul><li>neighbor <strong>10.0.0.2</strong> is <code>Idle</code></li><li>shut down by admin</li></ul>');
    expect(out).toContain('<a href="https://kb.example.net/AD000002" target="_blank" rel="noopener noreferrer">the runbook</a>');
    expect(out).toContain('<pre class="mono">show ip bgp summary</pre>');
  });

  it('never turns model text into markup: HTML stays text and only http(s) links are links', () => {
    const out = html('<img src=x onerror=alert(1)> [click](javascript:alert(1)) <script>alert(2)</script>');
    expect(out).not.toMatch(/<img|<script|href="javascript/);
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(out).toContain('click (javascript:alert(1))');
  });
});
