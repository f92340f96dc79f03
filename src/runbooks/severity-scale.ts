/** The FS's severity scale; Splunk may send its own per alert (`result.severity`). */
export const SEVERITIES = ['critical', 'major', 'minor', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];
