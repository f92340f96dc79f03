import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { pino } from 'pino';
import { createKbMcpServer } from './mcp-server';
import { projectRoot, resolveVaultDir } from './vault-dir';
import { createWikiQuery } from './wiki-query';

// Started by the agent runtime (opencode.json `mcp.kb`): stdout is the MCP channel, so logs go to stderr.
const logger = pino({ level: process.env.KB_LOG_LEVEL ?? 'info', base: { service: 'kb' } }, pino.destination(2));
const vaultDir = resolveVaultDir(process.env, projectRoot);
const server = createKbMcpServer({ wiki: createWikiQuery({ vaultDir }), logger });

const transport = new StdioServerTransport();
transport.onclose = () => process.exit(0);
await server.connect(transport);
logger.info({ vault: vaultDir }, 'kb wiki_query server ready on stdio');

process.stdin.on('end', () => void server.close().finally(() => process.exit(0)));
