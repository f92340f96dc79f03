import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SpanKind, trace, SpanStatusCode } from '@opentelemetry/api';
import { incidentAttributes, inIncidentSpan, type TracedIncident } from './incident-trace';
import { tracingActive } from './sdk';

type Handler = (args: unknown, extra: unknown) => CallToolResult | Promise<CallToolResult>;

/**
 * Every tool this MCP server registers afterwards runs in an `execute_tool <name>` span (the
 * OpenTelemetry GenAI name) under the trace of the incident its `incident_id` names; what the
 * tool calls out (the device server, the rooms) continues that trace. The arguments are never
 * recorded: the incident is known by the relay's own record of it, not by what the model sent.
 */
export function traceToolCalls(server: McpServer, incident: (id: string) => TracedIncident | undefined): McpServer {
  if (!tracingActive()) return server;
  const register = server.registerTool.bind(server) as (name: string, config: unknown, handler: Handler) => unknown;
  (server as { registerTool: unknown }).registerTool = (name: string, config: unknown, handler: Handler) =>
    register(name, config, (args, extra) => {
      const id = (args as { incident_id?: unknown } | undefined)?.incident_id;
      const known = typeof id === 'string' ? incident(id) : undefined;
      const attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name };
      return inIncidentSpan(known, `execute_tool ${name}`, attributes, async () => {
        const result = await handler(args, extra);
        const span = trace.getActiveSpan();
        // A request the call made (request_approval) is named on its span too.
        if (known) span?.setAttributes(incidentAttributes(incident(known.incident_id)));
        if (result.isError) span?.setStatus({ code: SpanStatusCode.ERROR, message: 'the tool answered an error' });
        return result;
      }, SpanKind.SERVER);
    });
  return server;
}
