import { namedGroups } from './expectations';
import { checkFormat, commandSafe, FormatError } from './formats';
import type { RepairActionWorkflow } from './schema-raw';
import { renderTemplate, type TemplateVars } from './template';

/** The names a RAW's steps capture from device output (any step, any platform variant). */
export function capturedNames(raw: RepairActionWorkflow): Set<string> {
  const names = new Set<string>();
  for (const step of raw.steps) {
    if (step.kind !== 'validate' && step.kind !== 'collect' && step.kind !== 'revalidate') continue;
    const variants = Object.values(step.variants ?? {});
    for (const pattern of [...step.capture, ...variants.flatMap((v) => v?.capture ?? [])]) namedGroups(pattern).forEach((g) => names.add(g));
  }
  return names;
}

/**
 * Renders a template into something the relay sends to a device (a show command, a configuration
 * line, the device's name). Every value rendered in is a RAW input whose value passes its declared
 * format (never `text`), or a value a RAW step captured from the device's own output; anything else
 * is refused with a FormatError naming the field, so alert or model text never becomes part of a
 * command. The artifact validator holds RAWs to the same rule; this is its second line.
 */
export function renderCommand(raw: RepairActionWorkflow, template: string, vars: TemplateVars): string {
  const inputs = new Map(raw.inputs.map((i) => [i.name, i.format] as const));
  const captured = capturedNames(raw);
  return renderTemplate(template, vars, (name, value) => {
    if (inputs.has(name)) {
      const format = inputs.get(name);
      if (!commandSafe(format) || !checkFormat(format, value)) throw new FormatError(name, format, value);
    } else if (!captured.has(name)) throw new FormatError(name, undefined, value);
  });
}
