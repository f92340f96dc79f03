import type { ConfigPreview } from '../../runbooks/config-preview';
import { redactDeviceSecrets } from '../incidents/evidence-redact';

const shown = (lines: readonly string[]) => lines.map((l) => redactDeviceSecrets(l).text);

/**
 * A dry run as it leaves the device tool server: a line it would remove or add can carry the
 * device's own secret (a neighbor's MD5 key, a community), and the preview is read by the agents
 * and shown on every card, chat message and page. The relay never acts on these lines: a rollback
 * puts back the configuration read just before the change, and the fingerprint is computed
 * separately, so taking the values out changes what people see and nothing the relay does.
 */
export function previewWithoutSecrets(p: ConfigPreview): ConfigPreview {
  return {
    ...p,
    added: shown(p.added),
    removed: shown(p.removed),
    problems: shown(p.problems),
    ...(p.rollback ? { rollback: { ...p.rollback, lines: shown(p.rollback.lines) } } : {}),
  };
}
