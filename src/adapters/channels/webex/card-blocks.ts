import type { PlanEntryRecord } from '../../../core/approvals/plan-lines';
import { visibleLines } from '../../../core/approvals/visible-text';
import { previewLines, ROLLBACK_TITLE, rollbackLines, type ConfigPreview } from '../../../runbooks/config-preview';
import type { AdaptiveCard } from './schemas';

type Body = AdaptiveCard['body'];

/**
 * Lines verbatim: a RichTextBlock's TextRuns are never read as Markdown (a TextBlock would turn
 * `permit _65002_` into italics), and leading spaces become no-break spaces so indentation stays.
 */
export function verbatimLine(line: string): Body[number] {
  const text = line.replace(/^ +/, (spaces) => '\u00a0'.repeat(spaces.length)) || '\u00a0';
  return { type: 'RichTextBlock', spacing: 'None', inlines: [{ type: 'TextRun', text, fontType: 'Monospace' }] };
}

export function commandBlock(title: string, lines: string[], max: number): Body {
  const shown = lines.slice(0, max);
  const more = lines.length - shown.length;
  return [
    { type: 'TextBlock', text: title, weight: 'Bolder', spacing: 'Medium' },
    {
      type: 'Container',
      style: 'emphasis',
      items: [...shown.map(verbatimLine), ...(more > 0 ? [{ type: 'TextBlock', text: `… and ${more} more`, isSubtle: true, spacing: 'Small' }] : [])],
    },
  ];
}

export function rollbackBlock(preview: ConfigPreview | null, max: number): Body {
  const [how = '', ...lines] = visibleLines(rollbackLines(preview)).lines;
  return [
    { type: 'TextBlock', text: ROLLBACK_TITLE, weight: 'Bolder', spacing: 'Medium' },
    { type: 'TextBlock', text: how, wrap: true, isSubtle: true, spacing: 'Small' },
    ...(lines.length ? commandBlock('', lines, max).slice(1) : []),
  ];
}

export function previewBlock(preview: ConfigPreview | null, max: number): Body {
  const [head = '', ...rest] = visibleLines(previewLines(preview)).lines;
  if (rest.length === 0) return [{ type: 'TextBlock', text: head, wrap: true, isSubtle: true, spacing: 'Small' }];
  const shown = rest.slice(0, max);
  return [
    { type: 'TextBlock', text: head, weight: 'Bolder', spacing: 'Medium', ...(preview && !preview.accepted ? { color: 'Attention' } : {}) },
    {
      type: 'Container',
      items: [...shown.map(verbatimLine), ...(rest.length > shown.length ? [{ type: 'TextBlock', text: `… and ${rest.length - shown.length} more`, isSubtle: true, spacing: 'Small' }] : [])],
    },
  ];
}

/**
 * A plan's lines grouped by device, in the order the guard applies them: each device's own lines,
 * what they would change there (its dry run), and how the relay would put that device back. Read
 * from the plan the core keeps, never from the `! device` headings of the flattened lines.
 */
export function planBlocks(plan: readonly PlanEntryRecord[], max: number): Body {
  return plan.flatMap((entry, i) => {
    const lines = visibleLines(entry.commands);
    return [
      { type: 'TextBlock', text: `Device ${i + 1} of ${plan.length}: ${entry.device}`, weight: 'Bolder', size: 'Medium', spacing: 'Large', separator: true, wrap: true },
      ...commandBlock(`Lines for ${entry.device}, exactly these, once`, lines.lines, max),
      ...(lines.warning ? [{ type: 'TextBlock', text: lines.warning, wrap: true, color: 'Attention', weight: 'Bolder' }] : []),
      ...previewBlock(entry.preview, max),
      ...rollbackBlock(entry.preview, max),
    ];
  });
}
