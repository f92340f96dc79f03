import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { previewLines, type ConfigPreview } from './config-preview';

/**
 * `preview_config {device, commands}` on a device tool server (the SSH/NETCONF server and the
 * simulated lab register the same tool): the ConfigPreview as structuredContent, its text for a person.
 */
export function registerPreviewTool(
  server: McpServer,
  preview: (device: string, commands: string[]) => ConfigPreview | Promise<ConfigPreview>,
  failed: (error: unknown) => CallToolResult,
): void {
  server.registerTool(
    'preview_config',
    {
      title: 'Preview configuration lines (dry run)',
      description:
        'What the lines would change on the live device, without changing it: whether the device (or its grammar) accepts them, and the running-configuration lines added and removed.',
      inputSchema: {
        device: z.string().min(1).describe('Device name as in the inventory'),
        commands: z.array(z.string()).min(1).max(200).describe('The configuration lines, in order'),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    async ({ device, commands }) => {
      try {
        const p = await preview(device, commands);
        return { content: [{ type: 'text' as const, text: previewLines(p).join('\n') }], structuredContent: p };
      } catch (error) {
        return failed(error);
      }
    },
  );
}
