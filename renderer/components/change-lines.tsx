import { visibleLines } from '../../src/core/approvals/visible-text';
import type { ConfigPreview } from '../../src/runbooks/config-preview';
import { previewMethodText } from '../../src/runbooks/preview-method';
import { ROLLBACK_TITLE } from '../../src/runbooks/rollback-text';

/** Lines as the device receives them: invisible, bidi and non-ASCII characters escaped, with a warning. */
export function Commands({ title, lines }: { title: string; lines: readonly string[] }) {
  const shown = visibleLines(lines);
  return (
    <div className="commands">
      <div className="dim small">{title}</div>
      {shown.warning ? (
        <p className="notice warning" role="alert">
          {shown.warning}
        </p>
      ) : null}
      <pre className="mono" aria-label={title}>
        {shown.lines.length ? shown.lines.join('\n') : '(none)'}
      </pre>
    </div>
  );
}

/** The relay's own rollback (rollback-text.ts), from the configuration before: never the agent's proposed one. */
export function Rollback({ lines, title = ROLLBACK_TITLE }: { lines: readonly string[]; title?: string }) {
  const [how, ...rest] = visibleLines(lines).lines;
  return (
    <div className="commands rollback" aria-label={title}>
      <div className="dim small">{title}</div>
      <div className="dim small">{how}</div>
      {rest.length ? (
        <pre className="mono" aria-label="Rollback">
          {rest.join('\n')}
        </pre>
      ) : null}
    </div>
  );
}

/** Beside the lines: what they would change on the live device (the relay's dry run before asking). */
export function Preview({ preview }: { preview: ConfigPreview | null | undefined }) {
  if (!preview) {
    return (
      <div className="commands preview" aria-label="Preview">
        <div className="dim small">No preview: the relay could not dry-run these lines on the device.</div>
      </div>
    );
  }
  const how = previewMethodText(preview.method);
  const lines = visibleLines([...preview.added.map((l) => `+ ${l}`), ...preview.removed.map((l) => `- ${l}`)]).lines;
  return (
    <div className="commands preview" aria-label="Preview">
      <div className="dim small">Would change ({how})</div>
      {!preview.accepted ? <p className="notice warning">Refused: {preview.problems.join('; ')}</p> : null}
      <pre className="mono" aria-label="Would change">
        {lines.length ? lines.join('\n') : 'nothing in the running configuration'}
      </pre>
    </div>
  );
}
