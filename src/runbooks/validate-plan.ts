import type { RepairActionWorkflow } from './schema-raw';
import { templateVariables } from './template';
import type { IssueSink } from './validate-issues';
import type { YamlSource } from './yaml-source';

/** The input format each lookup reads (schema-raw.ts, PLAN_DEVICE_LOOKUPS). */
const LOOKUP_FORMAT = { address_owner: 'ipv4', link_peer: 'interface' } as const;

/**
 * A plan's devices: each role declared once and found by a lookup over a declared input of the
 * format it needs; every step and every plan entry names a declared role, each device once per repair.
 * `known`: the RAW's inputs and captured names, the only values a plan's lines may read.
 */
export function checkPlanDevices(raw: RepairActionWorkflow, src: YamlSource, known: ReadonlySet<string>, sink: IssueSink): void {
  const roles = new Set<string>();
  raw.plan_devices.forEach((d, i) => {
    if (roles.has(d.role)) sink.at(src, ['plan_devices', i, 'role'], `plan device role ${d.role} is declared twice`, 'give each plan device its own role');
    roles.add(d.role);
    const input = raw.inputs.find((x) => x.name === d.input);
    const wanted = LOOKUP_FORMAT[d.find];
    if (!input) sink.at(src, ['plan_devices', i, 'input'], `plan device ${d.role} reads input ${d.input}, which the RAW does not declare`, `declare ${d.input} under inputs: (format ${wanted}), or name a declared input`);
    else if (input.format !== wanted) sink.at(src, ['plan_devices', i, 'input'], `find: ${d.find} reads a value of format ${wanted}, but input ${d.input} is ${input.format}`, `use an input of format ${wanted} for ${d.find}`);
  });
  const undeclared = (role: string) => `${role} is not a role under plan_devices (declared: ${[...roles].join(', ') || 'none'})`;
  raw.steps.forEach((s, i) => {
    if ((s.kind === 'validate' || s.kind === 'collect' || s.kind === 'revalidate') && s.device !== undefined && !roles.has(s.device)) {
      sink.at(src, ['steps', i, 'device'], `step ${s.id} runs on ${undeclared(s.device)}`, 'declare the role under plan_devices, or leave device: out to run on the incident device');
    }
    if (s.kind !== 'repair' || !s.plan) return;
    const seen = new Set<string>();
    s.plan.forEach((entry, j) => {
      if (!roles.has(entry.device)) sink.at(src, ['steps', i, 'plan', j, 'device'], `the plan of ${s.id} names ${undeclared(entry.device)}`, 'declare the role under plan_devices');
      if (seen.has(entry.device)) sink.at(src, ['steps', i, 'plan', j, 'device'], `the plan of ${s.id} names ${entry.device} twice`, "put all of a device's lines in one entry");
      seen.add(entry.device);
      const lines = [...entry.commands, ...Object.values(entry.variants ?? {}).flatMap((v) => v?.commands ?? [])];
      for (const line of lines) {
        let names: string[];
        try {
          names = templateVariables(line);
        } catch (e) {
          sink.at(src, ['steps', i, 'plan', j, 'commands'], `template: ${(e instanceof Error ? e.message : String(e))}`, 'close every {{#name}}/{{^name}} with {{/name}} and write variables as {{name}}');
          continue;
        }
        for (const n of names) if (!known.has(n)) sink.at(src, ['steps', i, 'plan', j, 'commands'], `{{${n}}} is neither a RAW input nor captured by any step`, `declare ${n} under inputs:, or capture it in an earlier step`);
      }
    });
  });
}
