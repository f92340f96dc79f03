import type { DirectPromptInput } from '../renderer/bridge/contract';
import { SEARCH_METADATA_KEYS } from '../src/adapters/alert-sources/schema';
import type { PublicIncident } from '../src/core/incidents/model';

const NOT_RESULT_FIELDS: ReadonlySet<string> = new Set([...SEARCH_METADATA_KEYS, 'device_name']);

/**
 * What the tray's "Copy headed-mode prompt" copies: the newest incident's alert, so an
 * engineer can take it over in the terminal UI; with no incident, the simulator's sample
 * (`npm run simulate -- --direct`).
 */
export function headedPromptInput(newest: PublicIncident | undefined, mode: 'strict' | 'hybrid'): { input: DirectPromptInput; label: string } {
  if (!newest) return { input: { alert_def_id: 'AD000002', device: 'R1', mode, vars: {} }, label: 'sample AD000002 on R1' };
  const vars = Object.fromEntries(Object.entries(newest.alert_vars).filter(([name]) => !NOT_RESULT_FIELDS.has(name)));
  return {
    input: { alert_def_id: newest.alert_def_id, device: newest.device_hostname, mode: newest.mode, vars },
    label: `${newest.alert_def_id} on ${newest.device_hostname}`,
  };
}
