import type { ArtifactGroup } from '../../../src/runbooks/validate';
import { toolNames, type ChatRequest, type Script, type Step } from '../scripted-model';
import { agentOf, readConversation, workingDirectory } from './conversation';
import { planFaultRemediation, type RemediationVariant } from './fault-remediation';
import { planIaReader } from './ia-reader';
import { planKbReader } from './kb-reader';
import type { RemediationTask } from './messages';
import { planMsgNotify } from './msg-notify';
import { planTroubleshooter } from './troubleshooter';
import { errorText } from '../../../src/core/error-body';

export { REMEDIATION_VARIANTS, type RemediationVariant } from './fault-remediation';
export { agentLogPath, TASKS } from './troubleshooter';
export { kbQueries } from './kb-reader';
export type { RemediationTask } from './messages';

export interface DemoBrainOptions {
  /** Validated artifact groups by alert_def_id (`loadArtifactGroup`); the brain follows their RAW. */
  groups: ReadonlyMap<string, ArtifactGroup>;
  /** Used when a system prompt does not name opencode's working directory. */
  projectDir: string;
  /** Per incident: `faithful` unless a test wants fault-remediation to misbehave. */
  variantFor?: (task: RemediationTask) => RemediationVariant;
  /** Upper bound for RAW waits and retry intervals, in seconds (default: the RAW's own values). */
  maxSleepS?: number;
}

/**
 * The scripted model's "brain" for an incident run: from each chat-completions request it
 * works out which agent is speaking and where that agent is, from the request alone, and
 * answers with the next tool call or the agent's answer. It never throws: a request it does
 * not understand gets a plain text answer, which ends that agent's turn.
 */
export function createDemoBrain(opts: DemoBrainOptions): Script {
  const variantFor = opts.variantFor ?? (() => 'faithful' as const);
  const maxSleepS = opts.maxSleepS ?? Number.POSITIVE_INFINITY;
  return (request: ChatRequest): Step => {
    if (toolNames(request).length === 0) return { text: titleFor(request) };
    const conversation = readConversation(request);
    const projectDir = workingDirectory(conversation) ?? opts.projectDir;
    try {
      switch (agentOf(conversation)) {
        case 'network-troubleshooter':
          return planTroubleshooter(conversation, projectDir);
        case 'ia-reader':
          return planIaReader(conversation, opts.groups, projectDir);
        case 'kb-reader':
          return planKbReader(conversation);
        case 'fault-remediation':
          return planFaultRemediation(conversation, { groups: opts.groups, variantFor, maxSleepS });
        case 'msg-notify':
          return planMsgNotify(conversation);
        case undefined:
          return { text: 'The scripted demo model only plays the incident agents (network-troubleshooter and its subagents).' };
      }
    } catch (error) {
      return { text: `scripted model error: ${errorText(error)}` };
    }
  };
}

/** Title requests carry no tools; the incident id makes the session list readable. */
function titleFor(request: ChatRequest): string {
  const text = JSON.stringify(request.messages.at(-1)?.content ?? '');
  const id = /\b(INC-\d{8}T\d{6}Z(?:-\d+)?)/.exec(text)?.[1];
  const device = /\\"device_hostname\\":\s*\\"([^\\"]+)/.exec(text)?.[1];
  return id ? `${id}${device ? ` ${device}` : ''} fault run` : 'Fault run';
}
