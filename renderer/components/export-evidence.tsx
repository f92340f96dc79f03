import { useState } from 'react';
import type { Bridge, EvidenceFile, EvidenceFormat } from '../bridge/contract';
import { errorText } from '../../src/core/error-body';

/** Saves a file the page holds: the browser's download, the tray window's save dialog. */
function saveFile(file: EvidenceFile): void {
  const href = URL.createObjectURL(new Blob([file.body], { type: file.contentType }));
  const a = document.createElement('a');
  a.href = href;
  a.download = file.filename;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // The download has its own copy once started; the page need not keep the bytes.
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

/**
 * "Export evidence": the incident's evidence bundle (lines and their hash, the decision, the show
 * outputs before and after the change, the outcome, a manifest of hashes), as Markdown or JSON.
 * Built by the relay (`GET /incidents/:id/evidence`), so the tray and /ui export the same file.
 */
export function ExportEvidence({ bridge, incidentId }: { bridge: Bridge; incidentId: string }) {
  const [busy, setBusy] = useState<EvidenceFormat | undefined>();
  const [error, setError] = useState<string | undefined>();
  const run = (format: EvidenceFormat) => {
    setBusy(format);
    setError(undefined);
    bridge
      .exportEvidence(incidentId, format)
      .then(saveFile, (e: unknown) => setError(`Could not export the evidence: ${errorText(e)}`))
      .finally(() => setBusy(undefined));
  };
  return (
    <div className="export-evidence" role="group" aria-label="Export evidence">
      <button type="button" onClick={() => run('md')} disabled={busy !== undefined} title="Markdown: the request, the decision, the outputs before and after, the outcome, with their hashes">
        {busy === 'md' ? 'Exporting…' : 'Export evidence'}
      </button>
      <button type="button" className="secondary" onClick={() => run('json')} disabled={busy !== undefined} title="The JSON bundle with its manifest of SHA-256 hashes">
        {busy === 'json' ? 'Exporting…' : 'JSON'}
      </button>
      {error ? (
        <span className="error-text" role="alert">
          {error}
        </span>
      ) : null}
    </div>
  );
}
