import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const clients: Client[] = [];
const temps: string[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  temps.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

/** The server started the way opencode.json starts it: `node --import tsx src/runbooks/kb/stdio-server.ts` in the project folder. */
async function connect(env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/runbooks/kb/stdio-server.ts'],
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', KB_LOG_LEVEL: 'silent', ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'kb-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  const call = async (args: Record<string, unknown>) => {
    const result = (await client.callTool({ name: 'wiki_query', arguments: args })) as { isError?: boolean; content: { text?: string }[] };
    return { isError: Boolean(result.isError), text: result.content.map((c) => c.text ?? '').join('\n') };
  };
  return { client, call };
}

describe('kb stdio MCP server', () => {
  it('offers wiki_query with the three depths and answers from the demo vault', async () => {
    const { client, call } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['wiki_query']);
    const depth = (tools[0]!.inputSchema.properties as Record<string, { enum?: string[] }>).depth;
    expect(depth?.enum).toEqual(['quick', 'standard', 'deep']);

    const answer = await call({ query: 'R1 BGP neighbor 10.0.0.6 shutdown', depth: 'quick' });
    expect(answer.isError).toBe(false);
    expect(answer.text).toContain('KI-0011: R1 neighbor 10.0.0.6 shut down for AS65003 maintenance');
    expect(answer.text).toContain('kb/operations/known-issues.md');
  });

  it('answers an empty query or an unknown depth with a tool error the agent can read', async () => {
    const { call } = await connect();
    const empty = await call({ query: '  ', depth: 'quick' });
    expect(empty).toMatchObject({ isError: true, text: expect.stringContaining('query is empty') });
    const depth = await call({ query: 'R1', depth: 'medium' });
    expect(depth).toMatchObject({ isError: true, text: expect.stringContaining('depth must be one of quick, standard, deep') });
  });

  it('reads the vault named by KB_DIR', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kb-dir-'));
    temps.push(dir);
    writeFileSync(path.join(dir, 'drill.md'), '---\ntitle: Fire drill\ntags: [site]\nupdated: 2026-11-01\n---\n# Fire drill\n\n## When\n\nFRA1 fire drill on Fridays.\n');
    const { call } = await connect({ KB_DIR: dir });
    const answer = await call({ query: 'fire drill', depth: 'quick' });
    expect(answer.text).toContain('FRA1 fire drill on Fridays.');
    expect((await call({ query: 'KI-0011 maintenance', depth: 'quick' })).text).toContain('No KB page matches this query.');
  });
});
