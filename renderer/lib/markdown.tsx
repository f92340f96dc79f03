import type { ReactNode } from 'react';

/**
 * The Markdown agents write (headings, lists, code, bold, italics, links), as React elements: no HTML
 * is ever parsed or injected, so text from the model cannot become markup. Links open only http(s).
 */
export function Markdown({ text }: { text: string }) {
  const blocks: ReactNode[] = [];
  const lines = text.replace(/\r/g, '').split('\n');
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    if (/^```/.test(line)) {
      const body: string[] = [];
      for (i++; i < lines.length && !/^```/.test(lines[i]!); i++) body.push(lines[i]!);
      i++;
      blocks.push(<pre key={blocks.length} className="mono">{body.join('\n')}</pre>);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(6, heading[1]!.length + 3);
      const Tag = `h${level}` as 'h4' | 'h5' | 'h6';
      blocks.push(<Tag key={blocks.length}>{inline(heading[2]!)}</Tag>);
      i++;
      continue;
    }
    const bullet = /^\s*([-*+]|\d+[.)])\s+/;
    if (bullet.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const items: ReactNode[] = [];
      for (; i < lines.length && bullet.test(lines[i]!); i++) items.push(<li key={items.length}>{inline(lines[i]!.replace(bullet, ''))}</li>);
      blocks.push(ordered ? <ol key={blocks.length}>{items}</ol> : <ul key={blocks.length}>{items}</ul>);
      continue;
    }
    if (!line.trim()) {
      i++;
      continue;
    }
    const para: string[] = [];
    for (; i < lines.length && lines[i]!.trim() && !/^```|^#{1,6}\s/.test(lines[i]!) && !bullet.test(lines[i]!); i++) para.push(lines[i]!);
    blocks.push(<p key={blocks.length}>{inline(para.join('\n'))}</p>);
  }
  return <div className="markdown">{blocks}</div>;
}

const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\[[^\]]+\]\([^)\s]+\))|(\*[^*\s][^*]*\*)/g;

function inline(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const [token] = m;
    if (token.startsWith('`')) out.push(<code key={out.length}>{token.slice(1, -1)}</code>);
    else if (token.startsWith('**')) out.push(<strong key={out.length}>{token.slice(2, -2)}</strong>);
    else if (token.startsWith('[')) {
      const link = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(token)!;
      const href = link[2]!;
      out.push(/^https?:\/\//i.test(href) ? <a key={out.length} href={href} target="_blank" rel="noopener noreferrer">{link[1]}</a> : `${link[1]} (${href})`);
    } else out.push(<em key={out.length}>{token.slice(1, -1)}</em>);
    last = m.index + token.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
