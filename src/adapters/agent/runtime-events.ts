import type { Logger } from 'pino';
import type { z } from 'zod';
import type { AgentRuntime, RuntimeEvent } from '../../core/agent-runtime';
import { systemClock, type Clock } from '../../core/clock';
import { createEventActions } from './runtime-event-actions';
import {
  messageUpdatedSchema,
  partUpdatedSchema,
  sessionCreatedSchema,
  sessionErrorSchema,
  sessionIdleSchema,
  sessionStatusSchema,
} from './runtime-event-schemas';
import { createSessionMemory, createSessionRouter, type Action } from './runtime-event-sessions';
import type { Incidents } from '../../core/incidents/service';
import type { Owns } from '../../core/incidents/ownership';

// Callers import the mapper, its excerpts and the follower from here; the parts live beside it.
export { EXCERPT_CHARS, excerpt } from './runtime-event-actions';
export { startRuntimeEventFollower, type FollowerStatus, type RuntimeEventFollower } from './runtime-event-follower';

export interface RuntimeEventMapperDeps {
  incidents: Pick<Incidents, 'bySession' | 'get' | 'record' | 'update' | 'transition' | 'timeline'>;
  /** Resolves the parent of a session first seen after a relay restart. */
  agent: Pick<AgentRuntime, 'getSession'>;
  logger: Logger;
  clock?: Clock;
  /** A root session failed and its incident is now `failed`: the caller tells the room. */
  onSessionFailed?: (incidentId: string, message: string) => void;
  /** Events about an incident this relay does not own write nothing here (src/core/incidents/ownership.ts). */
  owns: Owns;
}

export interface RuntimeEventMapper {
  handle(event: RuntimeEvent): void;
  /** Resolves once no session lookup is pending and everything they held back is mapped. */
  settled(): Promise<void>;
}

/**
 * Turns the runtime's event stream into incident timeline entries: the relay's root sessions
 * and every session below them. Children are learned from `session.created`; a session first
 * seen mid-run (the relay restarted) is looked up once, its events held back meanwhile so
 * the timeline keeps their order (runtime-event-sessions.ts).
 */
export function createRuntimeEventMapper(deps: RuntimeEventMapperDeps): RuntimeEventMapper {
  const { incidents, agent, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const memory = createSessionMemory();
  const { parentOf, roleOf, agentOf } = memory;
  const router = createSessionRouter({ incidents, agent, logger, owns: deps.owns, memory });
  const actions = createEventActions({ incidents, logger, clock, memory, onSessionFailed: deps.onSessionFailed });

  const parse = <S extends z.ZodType>(schema: S, event: RuntimeEvent): z.infer<S> | undefined => {
    const parsed = schema.safeParse(event.properties);
    if (parsed.success) return parsed.data;
    logger.debug({ type: event.type, issues: parsed.error.issues }, 'runtime event of unexpected shape skipped');
    return undefined;
  };

  /** Bookkeeping first (it must happen for every session), then what the event means, if anything. */
  function interpret(event: RuntimeEvent): Action | undefined {
    switch (event.type) {
      case 'session.created': {
        const info = parse(sessionCreatedSchema, event)?.info;
        if (!info) return undefined;
        parentOf.set(info.id, info.parentID ?? null);
        if (info.agent) agentOf.set(info.id, info.agent);
        // A root's agent shows with its first answer; a child's is known now.
        return info.parentID && info.agent ? actions.agentStarted(info.id, info.agent) : undefined;
      }
      case 'session.updated': {
        const info = parse(sessionCreatedSchema, event)?.info;
        if (info?.agent) agentOf.set(info.id, info.agent);
        return undefined;
      }
      case 'message.updated': {
        const info = parse(messageUpdatedSchema, event)?.info;
        if (!info) return undefined;
        roleOf.set(info.id, info.role);
        if (info.role !== 'assistant' || !info.agent) return undefined;
        agentOf.set(info.sessionID, info.agent);
        return actions.agentStarted(info.sessionID, info.agent);
      }
      case 'message.part.updated': {
        const part = parse(partUpdatedSchema, event)?.part;
        if (part?.type === 'tool') return actions.toolAction(part);
        if (part?.type === 'text') return actions.textAction(part);
        return undefined;
      }
      case 'session.status': {
        const props = parse(sessionStatusSchema, event);
        if (props?.status.type !== 'retry') return undefined;
        return actions.retryAction(props.sessionID, props.status);
      }
      case 'session.idle': {
        const props = parse(sessionIdleSchema, event);
        if (!props) return undefined;
        return actions.idleAction(props.sessionID);
      }
      case 'session.error': {
        const props = parse(sessionErrorSchema, event);
        if (!props?.sessionID) return undefined;
        const name = props.error?.name ?? 'UnknownError';
        return actions.sessionError(props.sessionID, name, props.error?.data?.message);
      }
      default:
        // Heartbeats, streaming deltas, plugin/catalog/diff noise.
        return undefined;
    }
  }

  return {
    handle(event) {
      const action = interpret(event);
      if (action) router.route(action);
    },
    settled: () => router.settled(),
  };
}
