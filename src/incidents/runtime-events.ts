import type { Logger } from 'pino';
import type { z } from 'zod';
import { AgentRuntimeError, type AgentRuntime, type RuntimeEvent } from '../agent/types';
import { systemClock, type Clock } from '../clock';
import { isTerminal, type Incident } from './model';
import {
  messageUpdatedSchema,
  partUpdatedSchema,
  sessionCreatedSchema,
  sessionErrorSchema,
  sessionIdleSchema,
  sessionStatusSchema,
  type RuntimePart,
} from './runtime-event-schemas';
import type { Incidents } from './service';
import type { Owns } from './ownership';

/** Longest excerpt of model text, tool output or error a timeline entry carries. */
export const EXCERPT_CHARS = 500;
/** How many sessions, messages and seen keys are remembered; old ones are forgotten first. */
const MEMORY = 20_000;

export interface RuntimeEventMapperDeps {
  incidents: Pick<Incidents, 'bySession' | 'get' | 'record' | 'update' | 'transition' | 'timeline'>;
  /** Resolves the parent of a session first seen after a relay restart. */
  agent: Pick<AgentRuntime, 'getSession'>;
  logger: Logger;
  clock?: Clock;
  /** A root session failed and its incident is now `failed`: the caller tells the room. */
  onSessionFailed?: (incidentId: string, message: string) => void;
  /** Team relays: events about an incident another relay owns write nothing here (src/incidents/ownership.ts). */
  owns?: Owns;
}

export interface RuntimeEventMapper {
  handle(event: RuntimeEvent): void;
  /** Resolves once no session lookup is pending and everything they held back is mapped. */
  settled(): Promise<void>;
}

export function excerpt(text: string, max = EXCERPT_CHARS): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** A Map that forgets its oldest keys past `max`, so a relay running for months stays small. */
function boundedMap<K, V>(max: number) {
  const map = new Map<K, V>();
  return {
    get: (k: K) => map.get(k),
    has: (k: K) => map.has(k),
    set(k: K, v: V) {
      map.delete(k);
      map.set(k, v);
      if (map.size > max) map.delete(map.keys().next().value as K);
    },
  };
}

interface Owner {
  incident: Incident;
  rootSession: string;
}

/** What one event means for the timeline, once its session is known to be ours. */
interface Action {
  sessionId: string;
  run(owner: Owner, isRoot: boolean): void;
}

type Ownership = { kind: 'ours'; owner: Owner } | { kind: 'foreign' } | { kind: 'unknown'; lookup: string };

/**
 * Turns the runtime's event stream into incident timeline entries: the relay's root sessions
 * and every session below them. Children are learned from `session.created`; a session first
 * seen mid-run (the relay restarted) is looked up once, its events held back meanwhile so
 * the timeline keeps their order.
 */
export function createRuntimeEventMapper(deps: RuntimeEventMapperDeps): RuntimeEventMapper {
  const { incidents, agent, logger } = deps;
  const clock = deps.clock ?? systemClock;
  /** session → parent session, null for a top-level session. Parents never change. */
  const parentOf = boundedMap<string, string | null>(MEMORY);
  const roleOf = boundedMap<string, string>(MEMORY);
  const agentOf = boundedMap<string, string>(MEMORY);
  /** Keys of entries already written: the runtime repeats part states (a `task` reports running twice). */
  const seen = boundedMap<string, true>(MEMORY);
  const lookups = new Set<string>();
  const inflight = new Set<Promise<void>>();

  const once = (key: string) => {
    if (seen.has(key)) return false;
    seen.set(key, true);
    return true;
  };

  function ownership(sessionId: string): Ownership {
    let s = sessionId;
    for (let depth = 0; depth < 32; depth++) {
      const incident = incidents.bySession(s);
      // A run another relay took over is its now: this relay's late events about it write nothing.
      if (incident) return deps.owns?.(incident.incident_id) === false ? { kind: 'foreign' } : { kind: 'ours', owner: { incident, rootSession: s } };
      if (!parentOf.has(s)) return { kind: 'unknown', lookup: s };
      const parent = parentOf.get(s);
      if (!parent) return { kind: 'foreign' };
      s = parent;
    }
    return { kind: 'foreign' };
  }

  /**
   * Actions waiting for a session lookup, in arrival order. While anything waits, everything
   * after it waits too, so the timeline keeps the stream's order across sessions.
   */
  const held: Action[] = [];

  function route(action: Action) {
    held.push(action);
    if (held.length === 1) drain();
  }

  function drain() {
    while (held.length > 0) {
      const action = held[0] as Action;
      const found = ownership(action.sessionId);
      if (found.kind === 'unknown') {
        if (!lookups.has(found.lookup)) lookup(found.lookup);
        return;
      }
      held.shift();
      if (found.kind === 'ours') run(action, found.owner);
    }
  }

  function run(action: Action, owner: Owner) {
    try {
      action.run(owner, action.sessionId === owner.rootSession);
    } catch (error) {
      logger.error({ err: error, incident_id: owner.incident.incident_id }, 'runtime event could not be added to the timeline');
    }
  }

  function lookup(sessionId: string) {
    const done = agent
      .getSession(sessionId)
      .then(
        (session) => {
          parentOf.set(sessionId, session.parentID ?? null);
          if (typeof session.agent === 'string' && !agentOf.has(sessionId)) agentOf.set(sessionId, session.agent);
        },
        (error: unknown) => {
          if (error instanceof AgentRuntimeError && error.kind === 'not_found') {
            parentOf.set(sessionId, null);
            return;
          }
          // Not remembered: the next event of this session asks again.
          const waiting = (a: Action) => {
            const found = ownership(a.sessionId);
            return found.kind === 'unknown' && found.lookup === sessionId;
          };
          const dropped = held.filter(waiting);
          held.splice(0, held.length, ...held.filter((a) => !waiting(a)));
          logger.warn({ session_id: sessionId, dropped: dropped.length, err: error }, 'could not resolve a runtime session; its events are skipped');
        },
      )
      .then(() => {
        lookups.delete(sessionId);
        drain();
      })
      .finally(() => inflight.delete(done));
    lookups.add(sessionId);
    inflight.add(done);
  }

  const who = (sessionId: string) => agentOf.get(sessionId) ?? 'agent';
  const base = (sessionId: string, isRoot: boolean) => ({
    session_id: sessionId,
    agent: agentOf.get(sessionId),
    ...(isRoot ? {} : { subagent: true, parent_session_id: parentOf.get(sessionId) ?? undefined }),
  });

  function agentStarted(sessionId: string, name: string): Action {
    return {
      sessionId,
      run({ incident }, isRoot) {
        const key = `agent|${sessionId}|${name}`;
        if (seen.has(key)) return;
        seen.set(key, true);
        // After a restart the entry may already be there from before.
        const before = incidents
          .timeline(incident.incident_id)
          .some((e) => e.type === 'agent.started' && e.session_id === sessionId && e.agent === name);
        if (before) return;
        incidents.record(incident.incident_id, 'agent.started', isRoot ? `${name} started` : `${name} started (subagent)`, {
          ...base(sessionId, isRoot),
          agent: name,
        });
      },
    };
  }

  function toolAction(part: RuntimePart): Action | undefined {
    const state = part.state;
    if (!state || !part.tool || !part.callID) return undefined;
    if (state.status !== 'running' && state.status !== 'completed' && state.status !== 'error') return undefined;
    const { tool, callID, sessionID } = part;
    const child = state.metadata?.sessionId;
    // `task` names its child session before the child's own events arrive.
    if (tool === 'task' && child && child !== sessionID) parentOf.set(child, sessionID);
    return {
      sessionId: sessionID,
      run({ incident }, isRoot) {
        if (!once(`tool|${sessionID}|${callID}|${state.status}`)) return;
        const subagent = tool === 'task' && typeof state.input?.subagent_type === 'string' ? ` → ${state.input.subagent_type}` : '';
        const what = `${who(sessionID)}: ${tool}${subagent}`;
        const input = state.input && Object.keys(state.input).length > 0 ? excerpt(JSON.stringify(state.input), 200) : undefined;
        const data = { ...base(sessionID, isRoot), tool, call_id: callID, ...(input ? { input } : {}), ...(child ? { child_session_id: child } : {}) };
        if (state.status === 'running') incidents.record(incident.incident_id, 'tool.running', `${what} running`, data);
        else if (state.status === 'completed') {
          incidents.record(incident.incident_id, 'tool.completed', `${what} completed`, { ...data, output: excerpt(state.output ?? '') });
        } else {
          const error = excerpt(state.error ?? 'unknown error');
          incidents.record(incident.incident_id, 'tool.error', `${what} failed: ${error}`, { ...data, error });
        }
      },
    };
  }

  function textAction(part: RuntimePart): Action | undefined {
    // Complete assistant words only: user prompts carry no time, streaming parts no end yet.
    if (part.time?.end === undefined || part.synthetic || !part.text?.trim()) return undefined;
    if (roleOf.get(part.messageID) === 'user') return undefined;
    const text = part.text;
    return {
      sessionId: part.sessionID,
      run({ incident }, isRoot) {
        if (!once(`text|${part.id}`)) return;
        incidents.record(incident.incident_id, 'agent.text', excerpt(text), base(part.sessionID, isRoot));
      },
    };
  }

  function sessionError(sessionId: string, name: string, message: string | undefined): Action {
    const summary = message ? `${name}: ${message}` : name;
    return {
      sessionId,
      run({ incident }, isRoot) {
        // An unknown agent makes the runtime report the same error twice.
        if (!once(`error|${sessionId}|${summary}`)) return;
        const id = incident.incident_id;
        const shown = excerpt(summary);
        if (!isRoot) {
          incidents.record(id, 'session.error', `${who(sessionId)} (subagent) failed: ${shown}`, { ...base(sessionId, false), error: shown });
          return;
        }
        incidents.record(id, 'session.error', `Agent session failed: ${shown}`, { ...base(sessionId, true), error: shown });
        const current = incidents.get(id);
        if (!current || isTerminal(current.state)) return;
        incidents.transition(id, 'fail', () => ({ outcome: { kind: 'failed', summary: shown, at: clock.now().toISOString() } }));
        logger.warn({ incident_id: id, session_id: sessionId }, `agent session failed: ${shown}`);
        try {
          deps.onSessionFailed?.(id, shown);
        } catch (error) {
          logger.error({ err: error, incident_id: id }, 'session failure handler failed');
        }
      },
    };
  }

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
        return info.parentID && info.agent ? agentStarted(info.id, info.agent) : undefined;
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
        return agentStarted(info.sessionID, info.agent);
      }
      case 'message.part.updated': {
        const part = parse(partUpdatedSchema, event)?.part;
        if (part?.type === 'tool') return toolAction(part);
        if (part?.type === 'text') return textAction(part);
        return undefined;
      }
      case 'session.status': {
        const props = parse(sessionStatusSchema, event);
        if (props?.status.type !== 'retry') return undefined;
        const { sessionID } = props;
        const { attempt, message, next } = props.status;
        return {
          sessionId: sessionID,
          run({ incident }, isRoot) {
            if (!once(`retry|${sessionID}|${attempt ?? message}`)) return;
            const why = excerpt(message ?? 'model provider unavailable');
            const label = attempt === undefined ? 'Model provider retry' : `Model provider retry ${attempt}`;
            incidents.record(incident.incident_id, 'runtime.retry', `${label}: ${why}`, {
              ...base(sessionID, isRoot),
              attempt,
              ...(next ? { next_at: new Date(next).toISOString() } : {}),
            });
          },
        };
      }
      case 'session.idle': {
        const props = parse(sessionIdleSchema, event);
        if (!props) return undefined;
        return {
          sessionId: props.sessionID,
          run({ incident }, isRoot) {
            if (!isRoot) return;
            const id = incident.incident_id;
            incidents.record(id, 'session.idle', `${who(props.sessionID)} idle`, base(props.sessionID, true));
            const current = incidents.get(id);
            if (current?.state === 'running' && !current.outcome) {
              logger.warn({ incident_id: id }, 'agent stopped without reporting an outcome');
              incidents.record(id, 'warning', 'agent stopped without reporting an outcome', { session_id: props.sessionID });
            }
          },
        };
      }
      case 'session.error': {
        const props = parse(sessionErrorSchema, event);
        if (!props?.sessionID) return undefined;
        const name = props.error?.name ?? 'UnknownError';
        return sessionError(props.sessionID, name, props.error?.data?.message);
      }
      default:
        // Heartbeats, streaming deltas, plugin/catalog/diff noise.
        return undefined;
    }
  }

  return {
    handle(event) {
      const action = interpret(event);
      if (action) route(action);
    },
    async settled() {
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
    },
  };
}

export interface FollowerStatus {
  connected: boolean;
  last_event_at?: string;
  error?: string;
}

export interface RuntimeEventFollower {
  status(): FollowerStatus;
  /** Closes the stream and waits for what is already received to be mapped. */
  stop(): Promise<void>;
}

/**
 * One connection to the runtime's event stream feeding the mapper. The client reconnects with
 * backoff by itself; this keeps what `/health/deep` shows.
 */
export function startRuntimeEventFollower(deps: {
  agent: Pick<AgentRuntime, 'followEvents'>;
  mapper: RuntimeEventMapper;
  logger: Logger;
  clock?: Clock;
  onStatus?: (status: FollowerStatus) => void;
}): RuntimeEventFollower {
  const { agent, mapper, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const controller = new AbortController();
  let current: FollowerStatus = { connected: false };

  const running = agent
    .followEvents(
      (event) => {
        current = { ...current, last_event_at: clock.now().toISOString() };
        mapper.handle(event);
      },
      {
        signal: controller.signal,
        onStatus({ connected, error }) {
          const { last_event_at } = current;
          current = { connected, ...(last_event_at ? { last_event_at } : {}), ...(error ? { error } : {}) };
          if (connected) logger.info('following the agent runtime event stream');
          else if (error) logger.warn({ error }, 'agent runtime event stream lost; reconnecting');
          try {
            deps.onStatus?.(current);
          } catch (err) {
            logger.error({ err }, 'event stream status handler failed');
          }
        },
      },
    )
    .catch((error: unknown) => logger.error({ err: error }, 'agent runtime event stream stopped'));

  let stopping: Promise<void> | undefined;
  return {
    status: () => ({ ...current }),
    stop: () =>
      (stopping ??= (async () => {
        controller.abort();
        await running;
        await mapper.settled();
      })()),
  };
}
