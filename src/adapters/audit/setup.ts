import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../../core/clock';
import type { RelayConfig } from '../../config/schema';
import type { Bus } from '../../core/events/bus';
import type { RelayEvents } from '../../core/incidents/events';
import type { Owns } from '../../core/incidents/ownership';
import type { ProxySettings } from '../net/proxy';
import { openFileOutboxStore } from '../outbox/file-store';
import type { OutboxStore } from '../outbox/types';
import type { OperatorsFileLog } from '../../core/operators/operators';
import { createAuditStream, type AuditStreamDeps } from './audit-stream';
import { relayEvent } from './derive';
import { auditSendersFrom } from './from-config';

export interface AuditSetupDeps {
  config: RelayConfig;
  incidents: AuditStreamDeps['incidents'];
  bus: Bus<RelayEvents>;
  clock: Clock;
  logger: Logger;
  scrub?: (text: string) => string;
  proxy?: ProxySettings;
  /** How the stream names this relay (a team relay's id); default the host's name. */
  host?: string;
  /** Whether this relay owns the incident: only the owner derives its events (one copy each). */
  owns: Owns;
  /** `/metrics`: the backlog per sink is read from the outboxes at scrape time. */
  registry?: Registry;
  /** Where the relay's standing warnings are gathered for /health: the stream adds its own. */
  warningsTo?: Set<() => string[]>;
  /** Where the batches are kept (a team gives its table); default a file per sink in RELAY_DATA_DIR. */
  openStore?: (name: string) => OutboxStore;
}

/** A failed authentication as the relay saw it: the route's pattern (never the URL: a sign-in link carries its token), method, source. */
export interface AuthFailure {
  method: string;
  route: string;
  ip: string;
  code: string;
}

/**
 * The relay's audit stream from its settings: no SIEM set, nothing is derived or stored. Also the
 * events that are not an incident's: failed authentications and configuration reloads.
 */
export function setUpAudit(deps: AuditSetupDeps) {
  const relay = deps.host ?? hostname();
  const { senders, close } = auditSendersFrom(deps.config, { clock: deps.clock, ...(deps.proxy ? { proxy: deps.proxy } : {}), host: relay });
  const dataDir = resolve(deps.config.RELAY_DATA_DIR);
  const stream = createAuditStream({
    senders,
    openStore: deps.openStore ?? ((name) => openFileOutboxStore(dataDir, name)),
    owns: deps.owns,
    incidents: deps.incidents,
    bus: deps.bus,
    relay,
    clock: deps.clock,
    logger: deps.logger,
    ...(deps.scrub ? { scrub: deps.scrub } : {}),
  });
  if (deps.registry && senders.length > 0) {
    new Gauge({
      name: 'fault_relay_audit_backlog',
      help: 'Audit events stored and not yet delivered, per SIEM sink.',
      labelNames: ['sink'],
      registers: [deps.registry],
      collect() {
        for (const s of stream.status()) this.set({ sink: s.sink }, s.backlog_units);
      },
    });
    new Gauge({
      name: 'fault_relay_audit_backlog_batches',
      help: 'Batches (outbox items) those audit events wait in, per SIEM sink.',
      labelNames: ['sink'],
      registers: [deps.registry],
      collect() {
        for (const s of stream.status()) this.set({ sink: s.sink }, s.backlog);
      },
    });
    new Gauge({
      name: 'fault_relay_audit_failed_batches',
      help: 'Batches of audit events a sink refused for good (HTTP 400) or that ran out of tries since the relay started.',
      labelNames: ['sink'],
      registers: [deps.registry],
      collect() {
        for (const s of stream.status()) this.set({ sink: s.sink }, s.failed);
      },
    });
  }
  stream.start();
  const now = () => deps.clock.now();
  const audit = {
    sinks: stream.sinks,
    status: stream.status,
    idle: stream.idle,
    /** Standing warnings for /health: a sink that refused events (with its reason), or one that is behind. */
    warnings(): string[] {
      return stream.status().flatMap((s) => {
        const e = s.last_error;
        if (s.failed > 0) return [`Audit to ${s.sink}: ${s.failed} batch(es) of events not delivered and not tried again; last: ${e?.reason ?? 'refused'}`];
        if (s.backlog > 0 && e) return [`Audit to ${s.sink}: ${s.backlog_units} event(s) in ${s.backlog} batch(es) waiting to be delivered (${e.reason}); they are kept and tried again`];
        return [];
      });
    },
    authFailed(f: AuthFailure): void {
      if (senders.length === 0) return;
      stream.emit(relayEvent(relay, now(), { type: 'auth.failed', actor: null, channel: f.route.slice(0, 100), outcome: '401', detail: { method: f.method.slice(0, 10), route: f.route.slice(0, 200), source_ip: f.ip.slice(0, 64), code: f.code.slice(0, 60) } }));
    },
    configChanged(what: 'policy' | 'operators', facts: { file: string; sha256?: string; ok: boolean; operators?: number }): void {
      if (senders.length === 0) return;
      stream.emit(relayEvent(relay, now(), { type: 'config.changed', actor: 'relay', outcome: facts.ok ? 'reloaded' : 'refused', detail: { what, file: facts.file.slice(-200), sha256: facts.sha256 ?? null, operators: facts.operators ?? null } }));
    },
    async stop() {
      await stream.stop();
      await close();
    },
  };
  deps.warningsTo?.add(audit.warnings);
  return audit;
}
export type RelayAudit = ReturnType<typeof setUpAudit>;

/**
 * The operators file's log that also tells the audit stream of each reload; bound late, since the
 * file is read before the stream exists (a broken file stops the relay before anything else).
 */
export function auditedOperatorsLog(logger: Pick<Logger, 'info' | 'error'>, file: string, audit: () => RelayAudit | undefined): OperatorsFileLog {
  return {
    info(obj, msg) {
      logger.info(obj, msg);
      const count = (obj as { operators?: unknown }).operators;
      audit()?.configChanged('operators', { file, ok: true, ...(typeof count === 'number' ? { operators: count } : {}) });
    },
    error(obj, msg) {
      logger.error(obj, msg);
      audit()?.configChanged('operators', { file, ok: false });
    },
  };
}
