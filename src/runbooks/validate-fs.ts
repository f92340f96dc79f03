import { namedGroups, REGEX_FLAGS } from './expectations';
import type { FaultSignature } from './schema-fs';
import { faultKeyProblems } from './fault-key';
import { alertmanagerMappingProblems } from './source-mappings';
import type { IssueSink } from './validate-issues';
import type { YamlSource } from './yaml-source';

/** Cross-checks an FS that already passed its schema: variables, detection patterns and their examples. */
export function checkFs(fs: FaultSignature, src: YamlSource, id: string, sink: IssueSink): void {
  if (fs.alert_def_id !== id) sink.at(src, ['alert_def_id'], `alert_def_id ${fs.alert_def_id} does not match the folder ${id}`, `set alert_def_id: ${id} (or rename the folder)`);
  const names = new Map<string, number>();
  fs.variables.forEach((v, i) => {
    if (names.has(v.name)) sink.at(src, ['variables', i, 'name'], `variable ${v.name} is declared twice`, 'remove one of the two declarations or rename it');
    names.set(v.name, i);
  });
  const captured = new Set<string>();
  const compiled: RegExp[] = [];
  fs.detection.patterns.forEach((p, i) => {
    let re: RegExp;
    try {
      re = new RegExp(p.regex, REGEX_FLAGS);
    } catch (e) {
      sink.at(src, ['detection', 'patterns', i, 'regex'], `regex does not compile: ${(e instanceof Error ? e.message : String(e))}`, 'fix the JavaScript regular expression (in single quotes YAML needs no extra escaping of backslashes)');
      return;
    }
    compiled.push(re);
    for (const g of namedGroups(p.regex)) {
      captured.add(g);
      const v = fs.variables.find((x) => x.name === g);
      if (!v) sink.at(src, ['detection', 'patterns', i, 'regex'], `captures (?<${g}>…) but no variable ${g} is declared`, `declare ${g} under variables: with sources: [pattern], or rename the group`);
      else if (!v.sources.includes('pattern')) sink.at(src, ['variables', names.get(g)!, 'sources'], `variable ${g} is captured by pattern ${p.id} but its sources do not include pattern`, 'add pattern to the variable\'s sources');
    }
    p.examples.forEach((ex, j) => {
      const m = re.exec(ex.line);
      if (!m) {
        sink.at(src, ['detection', 'patterns', i, 'examples', j, 'line'], `example does not match pattern ${p.id}`, 'correct the regex or the example line until the regex matches it (try it in node: new RegExp(regex).exec(line))');
        return;
      }
      const got = Object.fromEntries(Object.entries(m.groups ?? {}).filter(([, v]) => v !== undefined));
      const keys = new Set([...Object.keys(got), ...Object.keys(ex.captures)]);
      for (const k of keys) {
        if (got[k] !== ex.captures[k]) {
          sink.at(src, ['detection', 'patterns', i, 'examples', j, 'captures'], `example captures ${k}=${got[k] ?? '(nothing)'} but the example says ${ex.captures[k] ?? '(nothing)'}`, `make captures.${k} what the regex yields, or correct the named group (?<${k}>…)`);
        }
      }
    });
  });
  fs.detection.counter_examples.forEach((line, k) => {
    if (compiled.some((re) => re.test(line))) sink.at(src, ['detection', 'counter_examples', k], 'counter-example matches a detection pattern', 'tighten the detection regexes so this look-alike line of another fault no longer matches (or drop the line if it really is this fault)');
  });
  fs.variables.forEach((v, i) => {
    if (v.sources.includes('pattern') && !captured.has(v.name)) sink.at(src, ['variables', i, 'sources'], `variable ${v.name} names pattern as a source but no pattern captures it`, `add a (?<${v.name}>…) group to a pattern, or remove pattern from its sources`);
  });
  fs.required_alert_fields.forEach((f, i) => {
    for (const name of f.split('|')) {
      if (!names.has(name)) sink.at(src, ['required_alert_fields', i], `required field ${name} is not a declared variable`, `declare ${name} under variables:, or correct the name`);
    }
  });
  for (const p of [...faultKeyProblems(fs), ...alertmanagerMappingProblems(fs)]) sink.at(src, p.path, p.message, p.hint);
}
