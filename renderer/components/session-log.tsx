import { useEffect, useState } from 'react';
import type { Bridge } from '../bridge/contract';
import { errorText } from '../../src/core/error-body';

/** The Markdown session log, as written to logs/troubleshooting/ when the run ends. */
export function SessionLog({ bridge, incidentId, version }: { bridge: Bridge; incidentId: string; version: string }) {
  const [log, setLog] = useState<{ text: string | null; error?: string } | undefined>();
  useEffect(() => {
    let live = true;
    bridge.sessionLog(incidentId).then(
      (text) => live && setLog({ text }),
      (error: unknown) => live && setLog({ text: null, error: errorText(error) }),
    );
    return () => {
      live = false;
    };
    // `version` (the incident's updated_at) re-reads the log once the run has ended or changed.
  }, [bridge, incidentId, version]);

  if (!log) return <p className="empty">Loading the session log…</p>;
  if (log.error) return <p className="error-text">{log.error}</p>;
  if (log.text === null) return <p className="empty">No session log yet: it is written when the incident ends.</p>;
  return (
    <pre className="mono session-log" aria-label="Session log">
      {log.text}
    </pre>
  );
}
