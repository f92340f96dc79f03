import { listArtifactGroups, loadArtifactGroup, type ArtifactGroup } from '../../runbooks/load';
import type { ArtifactGroupViewBody } from './ui-schemas';

type Variable = ArtifactGroupViewBody['variables'][number];

/** The first value a detection example captures for `name`: a realistic placeholder. */
function exampleFor(group: ArtifactGroup, name: string): string | undefined {
  for (const pattern of group.fs.detection.patterns) {
    for (const example of pattern.examples) {
      const value = example.captures[name];
      if (value) return value;
    }
  }
  return undefined;
}

/**
 * The alert variables a group's runbook works from: the RAW's inputs, then the FS variables the
 * alert supplies. The hostname has its own field in the prompt copier, so it is not listed.
 */
function variablesOf(group: ArtifactGroup): Variable[] {
  const out = new Map<string, Variable>();
  const add = (name: string, required: boolean, fallback?: string) => {
    if (name === 'device_hostname') return;
    const existing = out.get(name);
    if (existing) {
      existing.required ||= required;
      return;
    }
    const example = exampleFor(group, name) ?? (fallback ? fallback : undefined);
    out.set(name, { name, required, ...(example ? { example } : {}) });
  };
  for (const input of group.raw.inputs) add(input.name, input.required, input.default);
  for (const variable of group.fs.variables) {
    if (variable.sources.includes('alert')) add(variable.alert_field ?? variable.name, variable.required);
  }
  return [...out.values()];
}

/** Artifact groups for the prompt copier; an invalid group is listed (so it is noticed) without variables. */
export async function artifactGroupViews(dir: string): Promise<ArtifactGroupViewBody[]> {
  const summaries = await listArtifactGroups(dir);
  return Promise.all(
    summaries.map(async (s) => {
      if (!s.valid) return { alert_def_id: s.alert_def_id, title: s.problems[0] ?? 'invalid artifact group', valid: false, variables: [] };
      const group = await loadArtifactGroup(dir, s.alert_def_id);
      return { alert_def_id: s.alert_def_id, title: s.title ?? s.alert_def_id, valid: true, variables: variablesOf(group) };
    }),
  );
}
