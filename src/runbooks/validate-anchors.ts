import { anchorProblem } from './anchored-pattern';
import { namedGroups } from './expectations';
import { commandSafe } from './formats';
import { capturedNames } from './render-command';
import type { CheckStep, Expectation, RawStep, RepairActionWorkflow } from './schema-raw';
import { renderedVariables, renderTemplate, templateVariables } from './template';
import type { IssueSink } from './validate-issues';
import { stepForPlatform, variantPlatforms } from './variants';
import type { PathSegment, YamlSource } from './yaml-source';

const RULE = 'intelligence-artifacts/README.md, "Patterns the post-check reads"';

/** A step as written and as each platform variant makes it, with where each form is written. */
function forms(s: RawStep, i: number): { step: RawStep; base: PathSegment[]; variant?: string }[] {
  return [{ step: s, base: ['steps', i] }, ...variantPlatforms(s).map((p) => ({ step: stepForPlatform(s, p), base: ['steps', i, 'variants', p] as PathSegment[], variant: p }))];
}

/** The keys a step's variant for `platform` writes itself (a form inherits the rest from the step as written). */
const variantWrites = (s: RawStep, platform: string | undefined, key: string): boolean =>
  platform === undefined || ('variants' in s && (s.variants as Record<string, Record<string, unknown> | undefined> | undefined)?.[platform]?.[key] !== undefined);

const isCheck = (s: RawStep): s is CheckStep => s.kind === 'validate' || s.kind === 'collect' || s.kind === 'revalidate';

/** Both renderings of a template (every variable set to a value without letters, then every one empty); none when it does not parse. */
function rendered(text: string): string[] {
  try {
    const names = templateVariables(text);
    return [Object.fromEntries(names.map((n) => [n, '0'])), Object.fromEntries(names.map((n) => [n, '']))].map((v) => renderTemplate(text, v));
  } catch {
    return [];
  }
}

/**
 * Only values that passed a declared format, or that a step captured from the device, are rendered
 * into what the relay sends a device: the `device`, show commands, configuration lines.
 */
export function checkCommandVariables(raw: RepairActionWorkflow, src: YamlSource, sink: IssueSink): void {
  const inputs = new Map(raw.inputs.map((input) => [input.name, input.format] as const));
  const captured = capturedNames(raw);
  const check = (path: PathSegment[], text: string) => {
    let names: string[];
    try {
      names = renderedVariables(text);
    } catch {
      return; // reported by the template check
    }
    for (const name of names) {
      if (captured.has(name) && !inputs.has(name)) continue;
      const format = inputs.get(name);
      if (commandSafe(format)) continue;
      const why = inputs.has(name) ? `input ${name} has format ${format}, which is never rendered into a command` : `{{${name}}} is not a declared RAW input`;
      sink.at(src, path, `${why}: alert or model text would become part of a command the relay sends`,
        inputs.has(name)
          ? `give ${name} a format a command may carry (ipv4, ipv6, ip, hostname, vrf, interface, asn, integer) in inputs: and the FS, or use it only in a {{#${name}}}…{{/${name}}} section or a summary`
          : `declare ${name} under inputs: with its format (e.g. format: ipv4), or capture it from the device in an earlier step`);
    }
  };
  check(['device'], raw.device);
  raw.steps.forEach((s, i) => {
    for (const f of forms(s, i)) {
      if (isCheck(f.step) && variantWrites(s, f.variant, 'action')) check([...f.base, 'action', 'command'], f.step.action.command);
      if (f.step.kind === 'repair' && variantWrites(s, f.variant, 'action')) {
        f.step.action.commands.forEach((c, k) => check([...f.base, 'action', 'commands', k], c));
      }
    }
  });
}

/** The names a step form reads in templates and `var` checks. */
function namesRead(step: CheckStep): Set<string> {
  const names = new Set<string>();
  const add = (text: string) => {
    try {
      templateVariables(text).forEach((n) => names.add(n));
    } catch {
      /* reported by the template check */
    }
  };
  add(step.action.command);
  step.capture.forEach(add);
  for (const e of step.expect) {
    if ('var' in e) names.add(e.var);
    else add('contains' in e ? e.contains : 'not_contains' in e ? e.not_contains : 'matches' in e ? e.matches : e.not_matches);
  }
  return names;
}

/**
 * The patterns the relay's post-check reads are anchored to their field (anchored-pattern.ts): every
 * capture and positive expectation of a revalidate step, and every capture, in any step, of a value a
 * revalidate step reads. A `contains` cannot be anchored: on CLI output a revalidate step may not pass on one.
 */
export function checkPostCheckPatterns(raw: RepairActionWorkflow, src: YamlSource, sink: IssueSink): void {
  const all = raw.steps.flatMap((s, i) => forms(s, i).map((f) => ({ ...f, written: s })));
  const read = new Set<string>();
  for (const f of all) if (f.step.kind === 'revalidate') namesRead(f.step).forEach((n) => read.add(n));
  const seen = new Set<string>();
  const check = (path: PathSegment[], pattern: string, xml: boolean, what: string) => {
    const key = JSON.stringify(path);
    if (seen.has(key)) return;
    seen.add(key);
    for (const r of rendered(pattern)) {
      const problem = anchorProblem(r, xml);
      if (!problem) continue;
      sink.at(src, path, `${what} is not anchored to its field: ${problem}`, `anchor it to the line's field label, e.g. '^\\s+BGP state = (?<state>\\S+)' or '^\\s+(?<prefixes>\\d+) accepted prefixes$' (the rule: ${RULE})`);
      return;
    }
  };
  for (const f of all) {
    if (!isCheck(f.step)) continue;
    const xml = f.variant === 'netconf';
    const own = (key: 'capture' | 'expect') => variantWrites(f.written, f.variant, key);
    if (own('capture')) {
      f.step.capture.forEach((c, k) => {
        if (f.step.kind === 'revalidate' || namedGroups(c).some((g) => read.has(g))) check([...f.base, 'capture', k], c, xml, 'a capture the post-check reads');
      });
    }
    if (f.step.kind !== 'revalidate' || !own('expect')) continue;
    f.step.expect.forEach((e: Expectation, k) => {
      if ('matches' in e) check([...f.base, 'expect', k, 'matches'], e.matches, xml, "a post-check's matches");
      else if ('contains' in e) {
        if (xml) check([...f.base, 'expect', k, 'contains'], e.contains, true, "a post-check's contains");
        else sink.at(src, [...f.base, 'expect', k, 'contains'], "a post-check's contains cannot be anchored: any line, a description included, could satisfy it", `use matches: '^…' with the field's label at the start of the line (the rule: ${RULE})`);
      }
    });
  }
}
