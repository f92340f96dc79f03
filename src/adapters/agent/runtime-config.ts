import { z } from 'zod';

/**
 * What decides a run's tools, as the runtime itself reports it (`GET /agent`, `GET /config`), not
 * only as the files say: opencode also takes configuration from `OPENCODE_CONFIG_CONTENT`,
 * `OPENCODE_PERMISSION`, `OPENCODE_CONFIG`, `OPENCODE_CONFIG_DIR`, the user's and the system's
 * opencode folders and `PATCH /config`. The shape of a runtime that runs exactly the shipped files
 * is kept in the manifest (`npm run runtime:manifest` starts one to take it); a runtime that reports
 * anything else is refused, by what differs.
 */
export const reportedAgentSchema = z.looseObject({
  name: z.string(),
  mode: z.string().nullish(),
  permission: z.array(z.looseObject({ permission: z.string(), pattern: z.string(), action: z.string() })).default([]),
  prompt: z.string().nullish(),
  options: z.record(z.string(), z.unknown()).nullish(),
  steps: z.number().nullish(),
  disable: z.boolean().nullish(),
});
export const reportedConfigSchema = z.looseObject({
  plugin: z.array(z.string()).nullish(),
  instructions: z.array(z.string()).nullish(),
  default_agent: z.string().nullish(),
  mcp: z.record(z.string(), z.looseObject({ type: z.string().nullish(), command: z.array(z.string()).nullish(), enabled: z.boolean().nullish() })).nullish(),
});

const agentShapeSchema = z.object({
  mode: z.string(),
  /** Ordered rules [permission, pattern, action]: the last match wins, so order is part of it. */
  permission: z.array(z.tuple([z.string(), z.string(), z.string()])),
  /** The system prompt, or null for none. */
  prompt: z.string().nullable(),
  options: z.string(),
  steps: z.number().nullable(),
  disabled: z.boolean(),
});
export type AgentShape = z.infer<typeof agentShapeSchema>;

export const runtimeConfigShapeSchema = z.object({
  agents: z.record(z.string(), agentShapeSchema),
  plugin: z.array(z.string()),
  instructions: z.array(z.string()),
  default_agent: z.string().nullable(),
  /** MCP server name → "type command…" (URLs and headers are the installation's, not the relay's shape). */
  mcp: z.record(z.string(), z.string()),
});
export type RuntimeConfigShape = z.infer<typeof runtimeConfigShapeSchema>;

/**
 * A rule's pattern with the runtime's own folders taken out: opencode allows its tool-output,
 * temp and plan folders by absolute path, or relative to the project's worktree (the filesystem
 * root outside git), which differ per machine.
 */
function pattern(p: string): string {
  const own = p.startsWith('/') || p.startsWith('../') || /^[A-Za-z]:[\\/]/.test(p) || /(^|\/)opencode\/plans\/\*\.md$/.test(p);
  return own ? '<runtime folder>' : p;
}

export function runtimeConfigShape(agents: z.infer<typeof reportedAgentSchema>[], config: z.infer<typeof reportedConfigSchema>): RuntimeConfigShape {
  const shaped = agents
    .map((a): [string, AgentShape] => [
      a.name,
      {
        mode: a.mode ?? 'all',
        permission: a.permission.map((r): [string, string, string] => [r.permission, pattern(r.pattern), r.action]),
        prompt: a.prompt ?? null,
        options: JSON.stringify(a.options ?? {}),
        steps: a.steps ?? null,
        disabled: a.disable ?? false,
      },
    ])
    .sort(([x], [y]) => x.localeCompare(y));
  const mcp = Object.entries(config.mcp ?? {})
    .map(([name, server]): [string, string] => [name, [server.type ?? 'toggle', ...(server.command ?? []), server.enabled === false ? '(disabled)' : ''].join(' ').trim()])
    .sort(([x], [y]) => x.localeCompare(y));
  return {
    agents: Object.fromEntries(shaped),
    plugin: [...(config.plugin ?? [])].sort(),
    instructions: [...(config.instructions ?? [])].sort(),
    default_agent: config.default_agent ?? null,
    mcp: Object.fromEntries(mcp),
  };
}

/** One difference, named for the person who must fix it. */
export interface ConfigDifference {
  subject: string;
  why: string;
}

function listDiff(subject: string, shipped: string[], now: string[], what: string): ConfigDifference[] {
  const added = now.filter((x) => !shipped.includes(x));
  const gone = shipped.filter((x) => !now.includes(x));
  const out: ConfigDifference[] = [];
  if (added.length) out.push({ subject, why: `has ${what} the relay does not ship: ${added.join(', ')}` });
  if (gone.length) out.push({ subject, why: `lacks shipped ${what}: ${gone.join(', ')}` });
  if (!out.length && shipped.join('\n') !== now.join('\n')) out.push({ subject, why: `has the shipped ${what} in another order (the last matching rule wins)` });
  return out;
}

function agentDiff(name: string, shipped: AgentShape, now: AgentShape): ConfigDifference[] {
  const subject = `agent ${name}`;
  const rule = ([permission, p, action]: [string, string, string]) => `${permission} ${p} ${action}`;
  const out = listDiff(subject, shipped.permission.map(rule), now.permission.map(rule), 'permission rules');
  if (now.mode !== shipped.mode) out.push({ subject, why: `runs as ${now.mode}, the relay ships ${shipped.mode}` });
  if (now.prompt !== shipped.prompt) out.push({ subject, why: 'has a system prompt the relay does not ship' });
  if (now.options !== shipped.options) out.push({ subject, why: `has options the relay does not ship: ${now.options}` });
  if (now.steps !== shipped.steps) out.push({ subject, why: `has a step limit of ${now.steps ?? 'none'}, the relay ships ${shipped.steps ?? 'none'}` });
  if (now.disabled !== shipped.disabled) out.push({ subject, why: now.disabled ? 'is disabled' : 'is enabled, the relay ships it disabled' });
  return out;
}

/** Every way the runtime's reported configuration differs from the shipped one. */
export function compareRuntimeConfig(shipped: RuntimeConfigShape, now: RuntimeConfigShape): ConfigDifference[] {
  const out: ConfigDifference[] = [];
  for (const [name, agent] of Object.entries(shipped.agents)) {
    const found = now.agents[name];
    out.push(...(found ? agentDiff(name, agent, found) : [{ subject: `agent ${name}`, why: 'is missing (the relay ships it)' }]));
  }
  for (const name of Object.keys(now.agents)) if (!(name in shipped.agents)) out.push({ subject: `agent ${name}`, why: 'is not shipped by the relay' });
  out.push(...listDiff('the runtime', shipped.plugin, now.plugin, 'plugins'));
  out.push(...listDiff('the runtime', shipped.instructions, now.instructions, 'instruction files'));
  if (now.default_agent !== shipped.default_agent) out.push({ subject: 'the runtime', why: `opens on agent ${now.default_agent ?? '(none)'}, the relay ships ${shipped.default_agent ?? '(none)'}` });
  for (const [name, server] of Object.entries(now.mcp)) {
    if (shipped.mcp[name] === undefined) out.push({ subject: `MCP server ${name}`, why: `is not shipped by the relay (${server})` });
    else if (shipped.mcp[name] !== server) out.push({ subject: `MCP server ${name}`, why: `runs ${server}, the relay ships ${shipped.mcp[name]}` });
  }
  for (const name of Object.keys(shipped.mcp)) if (now.mcp[name] === undefined) out.push({ subject: `MCP server ${name}`, why: 'is missing (the relay ships it)' });
  return out;
}

/** One line for /health, a timeline or a refusal: the first difference, and how many more. */
export function describeConfigDifferences(differences: ConfigDifference[]): string {
  const [first, ...rest] = differences;
  if (!first) return '';
  const more = rest.length ? ` (and ${rest.length} more: ${rest.map((d) => `${d.subject} ${d.why}`).join('; ')})` : '';
  return `the agent runtime's configuration is not as shipped: ${first.subject} ${first.why}${more}. Its environment or the user's opencode folders change it (OPENCODE_CONFIG_CONTENT, OPENCODE_PERMISSION, OPENCODE_CONFIG, OPENCODE_CONFIG_DIR, ~/.config/opencode); remove that and restart it`;
}
