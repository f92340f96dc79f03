import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { SEVERITIES, type Severity } from './severity-scale';

const isSeverity = (v: unknown): v is Severity => typeof v === 'string' && (SEVERITIES as readonly string[]).includes(v);

/**
 * A new incident's severity: the alert's own `severity` field when Splunk sends one of the scale's
 * words, else the fault signature's (`FS.yaml`, read once per alert definition), else none.
 */
export function createSeverityLookup(artifactsDir: string) {
  const fromFs = new Map<string, Severity | null>();
  return (alertDefId: string, alertVars: Readonly<Record<string, string>>): Severity | null => {
    const own = alertVars.severity?.trim().toLowerCase();
    if (isSeverity(own)) return own;
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(alertDefId)) return null;
    if (!fromFs.has(alertDefId)) {
      let severity: Severity | null = null;
      try {
        const fs = parse(readFileSync(join(artifactsDir, alertDefId, 'FS.yaml'), 'utf8')) as { severity?: unknown };
        if (isSeverity(fs?.severity)) severity = fs.severity;
      } catch {
        /* no FS for this alert: no severity */
      }
      fromFs.set(alertDefId, severity);
    }
    return fromFs.get(alertDefId) ?? null;
  };
}
