import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** A tool's answer: the value as text (JSON unless a string). */
export const text = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
});
/** A tool's refusal, in words the agent can act on. */
export const refuse = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });

export const incidentId = z.string().min(1).max(64).describe('incident_id from the alert prompt');
