/**
 * opencode config that routes every agent to the scripted model: `provider.scripted` through the
 * bundled `@ai-sdk/openai-compatible` (no install), as default and small (title) model.
 * Pass it as `startOpencode({ configContent })` (→ `OPENCODE_CONFIG_CONTENT`).
 */
export function scriptedProviderConfig(baseURL: string, extra: Record<string, unknown> = {}) {
  return {
    provider: {
      scripted: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Scripted',
        options: { baseURL, apiKey: 'scripted' },
        models: { scripted: { name: 'scripted', temperature: true, tool_call: true } },
      },
    },
    model: 'scripted/scripted',
    small_model: 'scripted/scripted',
    ...extra,
  };
}
