import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { Bridge, SettingField } from '../bridge/contract';

/**
 * Every setting of the relay. Secrets are write-only: the view learns only whether one is set,
 * and an empty secret field keeps the current value. The browser view cannot change anything.
 */
export function SettingsView({ bridge }: { bridge: Bridge }) {
  const [fields, setFields] = useState<SettingField[] | undefined>();
  const [edits, setEdits] = useState<Record<string, string>>({});
  const [result, setResult] = useState<{ ok: boolean; lines: string[] } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const editable = bridge.kind === 'desktop';

  const load = useCallback(
    () =>
      bridge.getSettings().then(
        (f) => {
          setFields(f);
          setEdits({});
        },
        (e: Error) => setError(e.message),
      ),
    [bridge],
  );
  useEffect(() => {
    void load();
  }, [load]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const changed = Object.fromEntries(Object.entries(edits).filter(([name, v]) => {
      const field = fields?.find((f) => f.name === name);
      return field?.secret ? v !== '' : v !== (field?.value ?? '');
    }));
    if (Object.keys(changed).length === 0) {
      setResult({ ok: true, lines: ['Nothing changed.'] });
      return;
    }
    try {
      const r = await bridge.saveSettings(changed);
      if (r.ok) {
        setResult({ ok: true, lines: [r.restartNeeded ? 'Saved. Restart the relay for the change to apply.' : 'Saved.'] });
        await load();
      } else setResult({ ok: false, lines: r.problems });
    } catch (e) {
      setResult({ ok: false, lines: [(e as Error).message] });
    }
  };

  return (
    <section className="page settings" aria-label="Settings">
      <header className="page-head">
        <h2>Settings</h2>
      </header>
      {!editable ? (
        <p className="notice">Read-only in the browser: set these environment variables where the relay runs and restart it. Secrets are never shown.</p>
      ) : null}
      {error ? <p className="error-text">{error}</p> : null}
      {fields ? (
        <form onSubmit={(e) => void save(e)}>
          <table className="settings-table">
            <tbody>
              {fields.map((f) => (
                <tr key={f.name}>
                  <th scope="row" className="mono">
                    <label htmlFor={`setting-${f.name}`}>{f.name}</label>
                  </th>
                  <td className="value">
                    {f.secret ? (
                      <input
                        id={`setting-${f.name}`}
                        type="password"
                        autoComplete="off"
                        className="mono"
                        disabled={!editable}
                        placeholder={f.isSet ? 'set (type to replace)' : 'not set'}
                        value={edits[f.name] ?? ''}
                        onChange={(e) => setEdits((c) => ({ ...c, [f.name]: e.target.value }))}
                      />
                    ) : (
                      <input
                        id={`setting-${f.name}`}
                        className="mono"
                        disabled={!editable}
                        placeholder="not set"
                        value={edits[f.name] ?? f.value ?? ''}
                        onChange={(e) => setEdits((c) => ({ ...c, [f.name]: e.target.value }))}
                      />
                    )}
                  </td>
                  <td className="dim small">
                    {f.secret ? <span className={`badge ${f.isSet ? 'check-ok' : 'check-off'}`}>{f.isSet ? 'secret set' : 'secret not set'}</span> : null}{' '}
                    {f.description}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {editable ? (
            <div className="form-actions">
              <button type="submit" className="primary">
                Save
              </button>
            </div>
          ) : null}
        </form>
      ) : null}
      {result ? (
        <ul className={result.ok ? 'notice' : 'error-text'} role="status">
          {result.lines.map((l) => (
            <li key={l}>{l}</li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
