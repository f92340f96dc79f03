import path from 'node:path';
import { rawReadOnlyCommands } from '../../../src/runbooks/load';
import type { ArtifactGroup } from '../../../src/runbooks/validate';
import { resolveFaultVariables } from '../../../src/runbooks/variables';
import { agentPromptSchema } from '../../../src/core/incidents/agent-prompt';
import type { Step } from '../scripted-model';
import { extractJson, type Conversation } from './conversation';

const FILES = ['FS.yaml', 'RAW.yaml', 'RG.md'] as const;

/**
 * ia-reader: reads the three artifact files with the `read` tool (so the run shows it), then
 * answers from the validated group the demo loaded at start, checking the alert against the FS
 * exactly as its prompt says.
 */
export function planIaReader(conversation: Conversation, groups: ReadonlyMap<string, ArtifactGroup>, projectDir: string): Step {
  const parsed = agentPromptSchema.safeParse(extractJson(conversation.users[0]?.text ?? ''));
  if (!parsed.success) return { text: 'ARTIFACTS: MISSING — the task prompt carries no alert prompt JSON' };
  const prompt = parsed.data;
  if (!/^AD\d{6}$/.test(prompt.alert_def_id)) return { text: `ARTIFACTS: MISSING — "${prompt.alert_def_id}" is not an alert definition id` };

  const reads = conversation.exchanges.filter((e) => e.name === 'read');
  if (reads.length === 0) {
    return {
      toolCalls: FILES.map((file) => ({
        name: 'read',
        arguments: { filePath: path.join(projectDir, 'intelligence-artifacts', prompt.alert_def_id, file) },
      })),
    };
  }
  const unreadable = reads.find((r) => !r.result || !/<content>|\n\s*1: /.test(r.result));
  if (unreadable) return { text: `ARTIFACTS: MISSING — ${String(unreadable.args.filePath ?? 'a file')}: ${(unreadable.result ?? '').slice(0, 200)}` };
  const group = groups.get(prompt.alert_def_id);
  if (!group) return { text: `ARTIFACTS: MISSING — no approved artifact group for ${prompt.alert_def_id} is known to this scripted model` };

  const { fs, raw, rg } = group;
  if (fs.alert_def_id !== prompt.alert_def_id || raw.alert_def_id !== prompt.alert_def_id) return { text: 'ARTIFACTS: CONTRADICTORY — FS/RAW alert_def_id' };
  if (raw.fs_version !== fs.version || rg.frontMatter.fs_version !== fs.version || rg.frontMatter.raw_version !== raw.version) {
    return { text: 'ARTIFACTS: CONTRADICTORY — FS, RAW and RG versions do not match' };
  }
  const alertVars = { ...prompt.alert_vars, device_hostname: prompt.device_hostname };
  const { vars, problems } = resolveFaultVariables(fs, alertVars, prompt.raw_message);
  if (problems.length > 0) {
    const kind = problems.some((p) => p.startsWith('contradictory')) ? 'CONTRADICTORY' : 'MISSING';
    return { text: `ARTIFACTS: ${kind} — ${problems.join('; ')}` };
  }
  const inputs = raw.inputs.map((i) => `${i.name}=${vars[i.name] ?? i.default ?? ''}`.replace(/=$/, '=(empty)'));
  const readOnly = rawReadOnlyCommands(raw, vars);
  const repair = raw.steps.flatMap((s) => (s.kind === 'repair' ? [`${s.id}: ${s.action.commands.join(' / ')}`] : []));
  const rel = (file: string) => `intelligence-artifacts/${prompt.alert_def_id}/${file}`;
  return {
    text: [
      'ARTIFACTS: OK',
      `alert_def_id: ${prompt.alert_def_id}`,
      `fs:  ${rel('FS.yaml')}  version ${fs.version}  "${fs.title}"`,
      `raw: ${rel('RAW.yaml')} version ${raw.version} (fs_version ${raw.fs_version})`,
      `rg:  ${rel('RG.md')}    fs ${rg.frontMatter.fs_version} raw ${rg.frontMatter.raw_version}`,
      `inputs: ${inputs.join('; ')}`,
      'read-only commands (exec_cli), in RAW order:',
      ...readOnly.map((c) => `- ${c}`),
      `repair steps (config_cli, need approval): ${repair.join('; ')}`,
      `checks: required fields present (${fs.required_alert_fields.join(', ')})${prompt.raw_message ? '; the log line matches the FS and agrees with the alert' : ''}`,
    ].join('\n'),
  };
}
