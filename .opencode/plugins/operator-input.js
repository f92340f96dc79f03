// Reports what a person types in opencode's terminal UI to the fault relay, so a typed
// APPROVED / DENIED becomes a recorded decision through a path the model cannot write:
// this hook sees user messages only, and only those of root sessions are sent (a
// subagent's prompt is written by the model). The relay decides what the text means.
//
// Needs RELAY_TOOLS_URL (the relay's /mcp URL) and RELAY_TOOLS_TOKEN in the runtime's
// environment, as the relay's MCP tools do; without them it does nothing.
import { userInfo } from 'node:os';

const TIMEOUT_MS = 5000;

function endpoint() {
  const tools = process.env.RELAY_TOOLS_URL;
  if (!tools || !process.env.RELAY_TOOLS_TOKEN) return undefined;
  try {
    return new URL('/operator-input', tools).toString();
  } catch {
    return undefined;
  }
}

export const OperatorInput = async ({ client }) => ({
  'chat.message': async (input, output) => {
    const url = endpoint();
    if (!url) return;
    const parts = (output.parts ?? []).filter((p) => p.type === 'text');
    if (parts.length === 0) return;
    let parent_id = null;
    try {
      const session = await client.session.get({ path: { id: input.sessionID } });
      parent_id = session?.data?.parentID ?? null;
    } catch {
      return; // unknown session: nothing to report
    }
    if (parent_id) return;
    const body = {
      session_id: input.sessionID,
      message_id: output.message?.id ?? 'unknown',
      text: parts.map((p) => p.text ?? '').join('\n'),
      agent: output.message?.agent ?? input.agent,
      parent_id,
      synthetic: parts.every((p) => p.synthetic === true),
      user: safeUser(),
    };
    // Awaited, so the decision is recorded before the agent's next step can act on it.
    await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${process.env.RELAY_TOOLS_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    }).catch(() => undefined);
  },
});

// The runtime may not know its OS user (Bun answers "unknown"): the login's variables first.
function safeUser() {
  const fromEnv = process.env.USER || process.env.LOGNAME || process.env.USERNAME;
  if (fromEnv) return fromEnv;
  try {
    const name = userInfo().username;
    return name && name !== 'unknown' ? name : undefined;
  } catch {
    return undefined;
  }
}
