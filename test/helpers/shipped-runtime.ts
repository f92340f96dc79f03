import { SHIPPED_MANIFEST } from '../../src/adapters/agent/integrity';

/**
 * What a runtime on exactly the shipped files answers to `GET /agent` and `GET /config` (from the
 * manifest), for stub runtimes behind AGENT_URL: the relay refuses runs on one that reports anything else.
 */
export function shippedRuntimeAnswers(model = 'stub/model') {
  const shape = SHIPPED_MANIFEST.runtime;
  if (!shape) throw new Error('the runtime manifest has no runtime shape: run npm run runtime:manifest');
  const agents = Object.entries(shape.agents).map(([name, a]) => ({
    name,
    mode: a.mode,
    permission: a.permission.map(([permission, pattern, action]) => ({ permission, pattern, action })),
    ...(a.prompt !== null ? { prompt: a.prompt } : {}),
    options: JSON.parse(a.options) as Record<string, unknown>,
    ...(a.steps !== null ? { steps: a.steps } : {}),
    ...(a.disabled ? { disable: true } : {}),
  }));
  const mcp = Object.fromEntries(
    Object.entries(shape.mcp).map(([name, server]) => {
      const [type, ...command] = server.split(' ');
      return [name, type === 'local' ? { type, command, enabled: true } : { type, enabled: true }];
    }),
  );
  return { agents, config: { plugin: shape.plugin, instructions: shape.instructions, ...(shape.default_agent ? { default_agent: shape.default_agent } : {}), mcp, model } };
}
