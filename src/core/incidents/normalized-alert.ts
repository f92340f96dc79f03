/** How deep the knowledge base is searched for an alert. */
export const KB_QUERY_MODES = ['quick', 'standard', 'deep'] as const;
export type KbQueryMode = (typeof KB_QUERY_MODES)[number];

/** What every alert source hands the domain, whatever the sender's wire format. */
export interface NormalizedAlert {
  alert_def_id: string;
  device_hostname: string;
  alert_vars: Record<string, string>;
  raw_message: string | null;
  kb_query_mode: KbQueryMode;
  warnings: string[];
  /** Identity of the fault for de-duplication while its incident is open. */
  dedup_key: string;
  /** Where each key field came from: the result's own field, the raw log line, Splunk's host, a label, or nowhere. */
  field_sources: FieldSources;
}

export type FieldSource = 'result' | 'result.device_name' | 'result.host' | '_raw' | 'label' | 'absent';
/** The BGP key's three always; an FS's other key fields (`key_fields`) beside them. */
export type FieldSources = {
  device_hostname: FieldSource;
  neighbor_ip: FieldSource;
  vrf_name: FieldSource;
} & Record<string, FieldSource>;
