import { useCallback, useEffect, useState } from 'react';
import type { Bridge } from '../bridge/contract';
import type { ChannelHealthReport, DeepHealth } from '../../src/relay/health-checks';
import { clockTime } from '../lib/format';
import { DIAGNOSTICS, FIX_FOR, type Diagnosis } from './health-fixes';
import { QuarantinePanel } from './quarantine-panel';
import { errorText } from '../../src/core/error-body';

type Status = 'ok' | 'failed' | 'skipped' | 'off';
interface Row {
  id: keyof typeof FIX_FOR;
  /** Unique per row when one check has several (a row per operator channel). */
  key?: string;
  name: string;
  status: Status;
  latency?: number;
  detail: string;
  fix?: Diagnosis;
  note?: string;
}

function rowsOf(h: DeepHealth): Row[] {
  const rt = h.checks.agent_runtime;
  const dev = h.checks.device_mcp;
  const msg = h.checks.messaging;
  return [
    {
      id: 'agent_runtime',
      name: 'Agent runtime',
      status: rt.ok ? 'ok' : 'failed',
      latency: rt.latency_ms,
      detail: [
        rt.url,
        rt.version ? `opencode ${rt.version}` : '',
        rt.event_stream ? `live progress ${rt.event_stream.connected ? 'connected' : 'not connected'}` : '',
        rt.error ?? '',
      ]
        .filter(Boolean)
        .join(' · '),
      ...(rt.ok ? {} : { fix: FIX_FOR.agent_runtime }),
    },
    'skipped' in dev
      ? {
          id: 'device_mcp',
          name: 'Device tool server',
          status: 'skipped',
          detail: 'DEVICE_MCP_URL is not set',
          note: 'The agents use the device tool server named in opencode.json; this check cannot prove it is the same one.',
        }
      : {
          id: 'device_mcp',
          name: 'Device tool server',
          status: dev.ok ? 'ok' : 'failed',
          latency: dev.latency_ms,
          detail: [dev.url, dev.status_code ? `HTTP ${dev.status_code}` : '', dev.error ?? ''].filter(Boolean).join(' · '),
          ...(dev.ok ? {} : { fix: FIX_FOR.device_mcp }),
        },
    ...(msg.channels && Object.keys(msg.channels).length ? Object.entries(msg.channels).map(([name, c]) => channelRow(name, c)) : [{
      id: 'messaging' as const,
      name: 'Webex',
      status: (!msg.configured ? 'off' : msg.connected ? 'ok' : 'failed') as Status,
      detail: !msg.configured
        ? 'not configured'
        : [msg.connected ? 'connected' : 'not connected', msg.last_event_at ? `last event ${clockTime(msg.last_event_at)} UTC` : '', msg.error ?? '']
            .filter(Boolean)
            .join(' · '),
      ...(msg.configured && !msg.connected ? { fix: FIX_FOR.messaging } : {}),
      ...(!msg.configured
        ? { note: 'Without an approval channel approvals are unattended (APPROVAL_WHEN_UNATTENDED) unless the tray app is running.' }
        : {}),
    }]),
    ...checkRows(h),
  ];
}

/** The model, the store and whether runs can start: a row each when reported, every failing one with its reason. */
function checkRows(h: DeepHealth): Row[] {
  const { model, store, runs } = h.checks;
  const rows: Row[] = [];
  if (model) {
    rows.push({ id: 'model', name: 'Model', status: model.ok ? 'ok' : 'failed', detail: model.ok ? (model.model ?? '') : (model.error ?? 'not configured'), ...(model.ok ? {} : { fix: FIX_FOR.model }) });
  }
  if (store) {
    const detail = [store.backend, store.pending_writes ? `${store.pending_writes} writes pending` : '', store.error ?? ''].filter(Boolean).join(' · ');
    rows.push({ id: 'store', name: 'Incident store', status: store.ok ? 'ok' : 'failed', ...(store.latency_ms !== undefined ? { latency: store.latency_ms } : {}), detail, ...(store.ok ? {} : { fix: FIX_FOR.store }) });
  }
  if (runs?.ok) rows.push({ id: 'runs', name: 'Runs', status: 'ok', detail: 'a new alert starts a run' });
  // One row per reason: each is its own thing to fix.
  for (const [i, reason] of (runs?.reasons ?? []).entries()) {
    rows.push({ id: 'runs', key: `runs-${i}`, name: 'Runs cannot start', status: 'failed', detail: reason, fix: FIX_FOR.runs });
  }
  return rows;
}

const CHANNEL_LABEL: Record<string, string> = { webex: 'Webex', slack: 'Slack' };

/** One row per operator channel: a follower's standby is healthy, degraded says the platform's reason. */
function channelRow(name: string, c: ChannelHealthReport): Row {
  const failed = c.state === 'degraded' || c.state === 'connecting';
  return {
    id: 'messaging',
    key: `messaging-${name}`,
    name: CHANNEL_LABEL[name] ?? name,
    status: failed ? 'failed' : 'ok',
    detail: [
      c.state === 'standby' ? 'standby (another relay of the team holds the connection)' : c.state === 'connecting' ? 'not connected' : c.state,
      c.reason ?? '',
      c.last_event_at ? `last event ${clockTime(c.last_event_at)} UTC` : '',
      c.error ?? '',
      c.warning ? `warning: ${c.warning.message}` : '',
    ]
      .filter(Boolean)
      .join(' · '),
    ...(failed ? { fix: FIX_FOR.messaging } : {}),
  };
}

const STATUS_LABEL: Record<Status, string> = { ok: 'ok', failed: 'failed', skipped: 'skipped', off: 'off' };

/** `/health/deep` with latencies and, for each failing check, what to check and fix. */
export function HealthPanel({ bridge }: { bridge: Bridge }) {
  const [health, setHealth] = useState<{ data?: DeepHealth; error?: string; at: string } | undefined>();
  const [busy, setBusy] = useState(false);

  const refresh = useCallback(async () => {
    setBusy(true);
    try {
      setHealth({ data: await bridge.health(), at: new Date().toISOString() });
    } catch (error) {
      setHealth({ error: errorText(error), at: new Date().toISOString() });
    } finally {
      setBusy(false);
    }
  }, [bridge]);
  useEffect(() => {
    void refresh();
  }, [refresh]);

  const overall = health?.data?.status ?? (health?.error ? 'unreachable' : undefined);
  return (
    <section className="page health" aria-label="Health">
      <header className="page-head">
        <h2>Health</h2>
        {overall ? (
          <span className={`badge health-${overall}`} aria-label={`overall ${overall}`}>
            {overall}
          </span>
        ) : null}
        <span className="dim small">{health ? `checked ${clockTime(health.at)} UTC` : 'checking…'}</span>
        <button type="button" onClick={() => void refresh()} disabled={busy}>
          {busy ? 'Checking…' : 'Refresh'}
        </button>
      </header>
      {health?.error ? <p className="error-text">The relay did not answer: {health.error}</p> : null}
      {health?.data ? (
        <table className="checks">
          <thead>
            <tr>
              <th>check</th>
              <th>status</th>
              <th className="num">latency</th>
              <th>details</th>
            </tr>
          </thead>
          <tbody>
            {rowsOf(health.data).map((r) => (
              <tr key={r.key ?? r.id} data-check={r.id} className={`row-${r.status}`}>
                <td>{r.name}</td>
                <td>
                  <span className={`badge check-${r.status}`}>{STATUS_LABEL[r.status]}</span>
                </td>
                <td className="num mono">{r.latency === undefined ? '—' : `${r.latency} ms`}</td>
                <td>
                  <div className="mono small">{r.detail}</div>
                  {r.fix ? (
                    <div className="fix">
                      <strong>{r.fix.symptom}.</strong> Check {r.fix.check}. Fix: {r.fix.fix}.
                    </div>
                  ) : null}
                  {r.note ? <div className="dim small">{r.note}</div> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {health?.data?.checks.quarantine ? <QuarantinePanel bridge={bridge} devices={health.data.checks.quarantine.devices} onCleared={() => void refresh()} /> : null}
      <details className="diagnostics">
        <summary>Troubleshooting by symptom</summary>
        <table>
          <thead>
            <tr>
              <th>symptom</th>
              <th>check</th>
              <th>fix</th>
            </tr>
          </thead>
          <tbody>
            {DIAGNOSTICS.map((d) => (
              <tr key={d.symptom}>
                <td>{d.symptom}</td>
                <td className="mono small">{d.check}</td>
                <td>{d.fix}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
