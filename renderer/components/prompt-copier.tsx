import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import type { ArtifactGroupView, Bridge, DirectPromptInput } from '../bridge/contract';
import { errorText } from '../../src/core/error-body';

type KbMode = NonNullable<DirectPromptInput['kb_query_mode']>;

/** The alert definitions the relay offers, the first valid one chosen; or why they could not be read. */
function useArtifactGroups(bridge: Bridge, choose: (alertDefId: string) => void) {
  const [groups, setGroups] = useState<ArtifactGroupView[] | undefined>();
  const [loadError, setLoadError] = useState<string | undefined>();
  useEffect(() => {
    bridge.listArtifactGroups().then(
      (g) => {
        setGroups(g);
        const first = g.find((x) => x.valid);
        if (first) choose(first.alert_def_id);
      },
      (e: unknown) => setLoadError(errorText(e)),
    );
  }, [bridge, choose]);
  return { groups, loadError };
}

/** One input per alert variable of the chosen definition, marked when the RAW requires it. */
function VariableFields({ alertDefId, group, vars, setVars }: { alertDefId: string; group: ArtifactGroupView | undefined; vars: Record<string, string>; setVars: (update: (cur: Record<string, string>) => Record<string, string>) => void }) {
  return (
    <>
      {(group?.variables ?? []).map((v) => (
        <label key={`${alertDefId}.${v.name}`}>
          <span>
            <span className="mono">{v.name}</span>
            {v.required ? <span className="req"> required</span> : null}
          </span>
          <input
            className="mono"
            aria-label={v.name}
            value={vars[v.name] ?? ''}
            required={v.required}
            placeholder={v.example ? `e.g. ${v.example}` : ''}
            onChange={(e) => setVars((cur) => ({ ...cur, [v.name]: e.target.value }))}
          />
        </label>
      ))}
    </>
  );
}

/** The run's mode and the KB depth the prompt asks for. */
function ModeFields({ mode, setMode, kbMode, setKbMode }: { mode: 'strict' | 'hybrid'; setMode: (m: 'strict' | 'hybrid') => void; kbMode: KbMode | ''; setKbMode: (m: KbMode | '') => void }) {
  return (
    <>
      <label>
        <span>Mode</span>
        <select value={mode} onChange={(e) => setMode(e.target.value as 'strict' | 'hybrid')}>
          <option value="strict">strict</option>
          <option value="hybrid">hybrid</option>
        </select>
      </label>
      <label>
        <span>KB depth</span>
        <select value={kbMode} onChange={(e) => setKbMode(e.target.value as KbMode | '')}>
          <option value="">standard (default)</option>
          <option value="quick">quick</option>
          <option value="standard">standard</option>
          <option value="deep">deep</option>
        </select>
      </label>
    </>
  );
}

/** The prompt the relay built, with its copy button. */
function PromptOut({ prompt, copy }: { prompt: string; copy: () => void }) {
  return (
    <div className="prompt-out">
      <div className="prompt-actions">
        <button type="button" className="primary" onClick={copy}>
          Copy to clipboard
        </button>
      </div>
      <pre className="mono" aria-label="Prompt">
        {prompt}
      </pre>
    </div>
  );
}

/**
 * Headed mode: the exact prompt the relay would send for an alert, to paste into the agent's
 * terminal UI. Built by the relay's own code, so it cannot drift from `simulate --direct`.
 */
export function PromptCopier({ bridge }: { bridge: Bridge }) {
  const [alertDefId, setAlertDefId] = useState('');
  const chooseFirst = useCallback((id: string) => setAlertDefId((current) => current || id), []);
  const { groups, loadError } = useArtifactGroups(bridge, chooseFirst);
  const [device, setDevice] = useState('');
  const [mode, setMode] = useState<'strict' | 'hybrid'>('strict');
  const [kbMode, setKbMode] = useState<KbMode | ''>('');
  const [vars, setVars] = useState<Record<string, string>>({});
  const [prompt, setPrompt] = useState<string | undefined>();
  const [status, setStatus] = useState<{ kind: 'error' | 'ok'; text: string } | undefined>();

  const group = useMemo(() => groups?.find((g) => g.alert_def_id === alertDefId), [groups, alertDefId]);

  const build = async (event: FormEvent) => {
    event.preventDefault();
    setStatus(undefined);
    const input: DirectPromptInput = {
      alert_def_id: alertDefId,
      device: device.trim(),
      mode,
      // Every field shown goes along; an empty one leaves the variable out of the alert.
      vars: Object.fromEntries((group?.variables ?? []).map((v) => [v.name, (vars[v.name] ?? '').trim()])),
      ...(kbMode ? { kb_query_mode: kbMode } : {}),
    };
    try {
      setPrompt(await bridge.directPrompt(input));
    } catch (error) {
      setPrompt(undefined);
      setStatus({ kind: 'error', text: errorText(error) });
    }
  };

  const copy = async () => {
    if (!prompt) return;
    try {
      await bridge.copyText(prompt);
      setStatus({ kind: 'ok', text: 'Copied. Paste it into the agent\'s terminal UI (agent network-troubleshooter).' });
    } catch (error) {
      setStatus({ kind: 'error', text: errorText(error) });
    }
  };

  return (
    <section className="page prompt-copier" aria-label="Headed-mode prompt">
      <header className="page-head">
        <h2>Headed-mode prompt</h2>
        <span className="dim small">the exact text the relay would send, for opencode's terminal UI</span>
      </header>
      {loadError ? <p className="error-text">{loadError}</p> : null}
      <form className="form-grid" onSubmit={(e) => void build(e)}>
        <label className="wide">
          <span>Alert definition</span>
          <select value={alertDefId} onChange={(e) => setAlertDefId(e.target.value)} required>
            {(groups ?? []).map((g) => (
              <option key={g.alert_def_id} value={g.alert_def_id} disabled={!g.valid}>
                {g.alert_def_id} — {g.valid ? g.title : `invalid: ${g.title}`}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Device</span>
          <input className="mono" value={device} onChange={(e) => setDevice(e.target.value)} placeholder="R1" required />
        </label>
        <VariableFields alertDefId={alertDefId} group={group} vars={vars} setVars={setVars} />
        <ModeFields mode={mode} setMode={setMode} kbMode={kbMode} setKbMode={setKbMode} />
        <div className="form-actions">
          <button type="submit" className="primary" disabled={!alertDefId}>
            Create headed incident
          </button>
        </div>
      </form>
      {status ? (
        <p className={status.kind === 'error' ? 'error-text' : 'notice'} role="status">
          {status.text}
        </p>
      ) : null}
      {prompt ? <PromptOut prompt={prompt} copy={() => void copy()} /> : null}
    </section>
  );
}
