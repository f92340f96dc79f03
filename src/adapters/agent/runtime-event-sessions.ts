import type { Logger } from 'pino';
import { AgentRuntimeError, type AgentRuntime } from '../../core/agent-runtime';
import type { Incident } from '../../core/incidents/model';
import type { Owns } from '../../core/incidents/ownership';
import type { Incidents } from '../../core/incidents/service';

/** How many sessions, messages and seen keys are remembered; old ones are forgotten first. */
const MEMORY = 20_000;

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

type BoundedMap<K, V> = ReturnType<typeof boundedMap<K, V>>;

export interface Owner {
  incident: Incident;
  rootSession: string;
}

/** What one event means for the timeline, once its session is known to be ours. */
export interface Action {
  sessionId: string;
  run(owner: Owner, isRoot: boolean): void;
}

type Ownership = { kind: 'ours'; owner: Owner } | { kind: 'foreign' } | { kind: 'unknown'; lookup: string };

/** What the mapper remembers about sessions and messages, shared by the lookups and the actions. */
export interface SessionMemory {
  /** session → parent session, null for a top-level session. Parents never change. */
  parentOf: BoundedMap<string, string | null>;
  roleOf: BoundedMap<string, string>;
  agentOf: BoundedMap<string, string>;
  /** Keys of entries already written: the runtime repeats part states (a `task` reports running twice). */
  seen: BoundedMap<string, true>;
  /** True the first time a key is seen. */
  once(key: string): boolean;
}

export function createSessionMemory(): SessionMemory {
  const seen = boundedMap<string, true>(MEMORY);
  return {
    parentOf: boundedMap<string, string | null>(MEMORY),
    roleOf: boundedMap<string, string>(MEMORY),
    agentOf: boundedMap<string, string>(MEMORY),
    seen,
    once(key) {
      if (seen.has(key)) return false;
      seen.set(key, true);
      return true;
    },
  };
}

export interface SessionRouter {
  /** Runs the action once its session is known to be ours; drops it when the session is not. */
  route(action: Action): void;
  /** Resolves once no session lookup is pending and everything they held back is run. */
  settled(): Promise<void>;
}

/**
 * Finds the incident an event's session belongs to by walking up to a root session. A session
 * first seen mid-run (the relay restarted) is looked up once, its events held back meanwhile so
 * the timeline keeps their order.
 */
export function createSessionRouter(deps: {
  incidents: Pick<Incidents, 'bySession'>;
  agent: Pick<AgentRuntime, 'getSession'>;
  logger: Logger;
  owns: Owns;
  memory: SessionMemory;
}): SessionRouter {
  const { incidents, agent, logger } = deps;
  const { parentOf, agentOf } = deps.memory;
  const lookups = new Set<string>();
  const inflight = new Set<Promise<void>>();

  function ownership(sessionId: string): Ownership {
    let s = sessionId;
    for (let depth = 0; depth < 32; depth++) {
      const incident = incidents.bySession(s);
      // A run another relay took over is its now: this relay's late events about it write nothing.
      if (incident) return !deps.owns(incident.incident_id) ? { kind: 'foreign' } : { kind: 'ours', owner: { incident, rootSession: s } };
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

  return {
    route,
    async settled() {
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
    },
  };
}
