import { visibleText } from '../../src/core/approvals/inert-text';
import type { TimelineEntry } from '../../src/core/incidents/model';
import { entries } from '../../src/core/events/timeline-entries';

/** The first line of a message, with control characters written out: an escape sequence the model wrote never reaches the terminal. */
const first = (text: string, max = 110) => {
  const line = visibleText(text).split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};
/** A string field from an entry's (possibly cut) JSON excerpt of tool input. */
const field = (input: unknown, name: string) => (typeof input === 'string' ? new RegExp(`"${name}":"((?:[^"\\\\]|\\\\.)*)`).exec(input)?.[1] : undefined);
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** Tools whose progress other entries already tell (device.*, notify.*, approval.*, outcome.*). */
const TOLD_ELSEWHERE = /^(device_|relay_|todowrite$)/;

/**
 * One compact line for the terminal per timeline entry worth reading live, indented by who
 * acts (the troubleshooter, a subagent, the relay); `undefined` for bookkeeping entries.
 */
export function formatTimelineEntry(entry: TimelineEntry): string | undefined {
  const sub = entry.subagent === true ? '    ' : '  ';
  const who = str(entry.agent) || 'agent';
  switch (entry.type) {
    case entries.alertReceived.name:
      return `  ⚑ ${entry.message}`;
    case entries.agentStarted.name:
      return `${sub}▶ ${entry.message}`;
    case entries.toolRunning.name: {
      const tool = str(entry.tool);
      if (TOLD_ELSEWHERE.test(tool)) return undefined;
      if (tool === 'task') {
        // The input excerpt is cut at 200 characters; subagent_type often comes after a long prompt.
        const to = field(entry.input, 'subagent_type');
        return `${sub}→ ${who} delegates${to ? ` to ${to}` : ''}: ${field(entry.input, 'description') ?? ''}`;
      }
      if (tool === 'read') return `${sub}${who}: read ${(field(entry.input, 'filePath') ?? '').split(/[\\/]/).slice(-2).join('/')}`;
      if (tool === 'kb_wiki_query') return `${sub}${who}: kb_wiki_query "${field(entry.input, 'query') ?? ''}" (${field(entry.input, 'depth') ?? ''})`;
      if (tool === 'bash') return `${sub}${who}: $ ${field(entry.input, 'command') ?? ''}`;
      if (tool === 'write') return `${sub}${who}: write ${(field(entry.input, 'filePath') ?? '').split(/[\\/]/).slice(-3).join('/')}`;
      return `${sub}${who}: ${tool}`;
    }
    case entries.toolError.name:
      return TOLD_ELSEWHERE.test(str(entry.tool)) ? undefined : `${sub}✖ ${first(entry.message)}`;
    case entries.agentText.name:
      return `${sub}« ${who}: ${first(entry.message)}`;
    case entries.deviceExec.name: {
      // The engineer reads what the router said, all of it, as in their own terminal.
      const output = str(entry.output).replace(/\r/g, '').replace(/\n+$/, '');
      return output ? `    ${entry.message}\n${output.split('\n').map((l) => `        ${l}`).join('\n')}` : `    ${entry.message}  (no output)`;
    }
    case entries.deviceRefused.name:
      return `    ⛔ guard: ${first(entry.message, 160)}`;
    case entries.deviceConfigApplied.name:
      return `    ⚙ ${entry.message}`;
    case entries.deviceError.name:
      return `    ✖ ${first(entry.message)}`;
    case entries.notifyFaultReceived.name:
    case entries.notifyStepProgress.name:
    case entries.notifyFinal.name:
      return `  ✉ ${entry.type.slice('notify.'.length)}: ${first(entry.message.replace(/\*\*/g, ''))}`;
    case entries.approvalRequested.name:
      return `  ⏸ ${entry.message}: ${Array.isArray(entry.commands) ? entry.commands.join(' / ') : ''}`;
    case entries.approvalDecided.name:
    case entries.approvalSkipped.name:
    case entries.approvalExpired.name:
      return `  ✔ ${first(entry.message, 160)}`;
    case entries.outcomeReported.name:
      return `  ■ outcome ${first(entry.message, 200)}`;
    case entries.stateChanged.name:
      return `  · state ${entry.message}`;
    case entries.sessionError.name:
    case entries.warning.name:
    case entries.deliveryFailed.name:
    case entries.runtimeRetry.name:
      return `  ! ${first(entry.message, 200)}`;
    default:
      return undefined;
  }
}
