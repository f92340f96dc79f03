import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { KB_DEPTHS, MAX_QUERY_CHARS } from './schema';
import { KbVaultError } from './vault';
import { KbQueryError, type WikiQuery } from './wiki-query';

const failure = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });

/** The KB wiki as an MCP server with one tool, `wiki_query` (the agents see `kb_wiki_query`). */
export function createKbMcpServer(deps: { wiki: WikiQuery; logger: Logger }): McpServer {
  const { wiki, logger } = deps;
  const server = new McpServer(
    { name: 'fault-relay-kb', version: '1.0.0' },
    { instructions: 'The operations KB wiki: business rules, approval policy, maintenance windows, escalation path, known issues, incident history, SLA.' },
  );

  server.registerTool(
    'wiki_query',
    {
      title: 'Query the operations KB wiki',
      description:
        'Searches the KB wiki (business rules, approval policy, maintenance windows and change records, escalation path, known issues, incident history, SLA, device notes). depth quick: the best few sections; standard: whole matching pages; deep: matching pages plus the pages they link to and the matching incident history. Use the alert\'s kb_query_mode as depth.',
      // query stays loose here: the handler trims it and answers an empty one with a sentence the model can act on.
      inputSchema: {
        query: z.string().max(MAX_QUERY_CHARS * 2).describe('Keywords: device, neighbor address, VRF, alert id and the topic, e.g. "R1 BGP neighbor 10.0.0.2 shutdown maintenance window"'),
        depth: z.enum(KB_DEPTHS, { error: 'depth must be one of quick, standard, deep' }).optional().describe('quick, standard or deep (the alert\'s kb_query_mode); default standard'),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      try {
        const answer = await wiki.query(args);
        logger.debug({ depth: answer.depth, hits: answer.hits.length, truncated: answer.truncated }, 'wiki_query answered');
        return { content: [{ type: 'text', text: answer.text }] };
      } catch (error) {
        if (error instanceof KbQueryError || error instanceof KbVaultError) return failure(error.message);
        logger.error({ err: error }, 'wiki_query failed');
        return failure(`wiki_query failed: ${(error instanceof Error ? error.message : String(error))}`);
      }
    },
  );
  return server;
}
