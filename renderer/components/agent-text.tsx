import { visibleText } from '../../src/core/approvals/inert-text';

/**
 * Text the agent wrote, as text: no Markdown or HTML is read in it, every hidden or control character
 * is written out, and it sits in a quote under the relay's label, never styled as the relay's own.
 */
export function AgentText({ label, text }: { label?: string; text: string }) {
  return (
    <figure className="agent-text">
      {label ? <figcaption className="dim small">{label}</figcaption> : null}
      <blockquote className="agent-quote">{visibleText(text)}</blockquote>
    </figure>
  );
}
