import type { ConfigPreview } from '../../../runbooks/config-preview';
import { DeviceError } from '../errors';
import { configSha256 } from '../../../runbooks/config-fingerprint';
import { approvedFragment } from './fragment';
import type { NetconfDeviceEntry } from './inventory';
import { discardChanges, editCandidate, getConfig, lock, unlock, validateCandidate } from './operations';
import { NetconfRpcError } from './rpc-error';
import { NetconfSession } from './session';
import { elements, isContainer, textOf, type XmlElement } from '../../../runbooks/xml';

/** `neighbor[address="10.0.0.2"]`: a list entry named by its first leaf, as in verify.ts's messages. */
function label(el: XmlElement): string {
  const firstLeaf = elements(el).find((c) => !isContainer(c) && textOf(c));
  return isContainer(el) && firstLeaf ? `${el.local}[${firstLeaf.local}="${textOf(firstLeaf)}"]` : el.local;
}

/** Every leaf of a `<data>` as `/bgp/neighbor[address="10.0.0.2"]/description = text`: comparable lines. */
export function leafLines(data: XmlElement): string[] {
  const out: string[] = [];
  const walk = (el: XmlElement, path: string) => {
    const kids = elements(el);
    if (kids.length === 0) return void out.push(textOf(el) ? `${path} = ${textOf(el)}` : path);
    for (const k of kids) walk(k, `${path}/${label(k)}`);
  };
  for (const top of elements(data)) walk(top, `/${label(top)}`);
  return out;
}

const why = (error: unknown) => (error instanceof NetconfRpcError || error instanceof DeviceError ? error.message : String(error));

/**
 * The device's own dry run, on a session of its own: lock the candidate, reset it to running,
 * edit-config, validate, read candidate and running, then discard-changes and unlock. Never a
 * commit, so running cannot change. A refused edit or validate is `accepted: false` with the
 * device's words. A lock held elsewhere (a confirmed commit waiting for its decision) is an error:
 * the device could not be asked, which is not a refusal.
 */
export async function previewNetconf(entry: NetconfDeviceEntry, knownHostsPath: string, lines: string[], remember: (lines: string[]) => string = configSha256): Promise<ConfigPreview> {
  const device = entry.name;
  const answer = (p: Omit<ConfigPreview, 'device' | 'method'>): ConfigPreview => ({ device, method: 'candidate', ...p });
  let fragment: ReturnType<typeof approvedFragment>;
  try {
    fragment = approvedFragment(device, lines);
  } catch (error) {
    if (error instanceof DeviceError) return answer({ accepted: false, added: [], removed: [], problems: [error.message] });
    throw error;
  }
  const s = await NetconfSession.open(entry, knownHostsPath);
  try {
    await lock(s, 'candidate').catch((error: unknown) => {
      // Held by a confirmed commit waiting for its decision, or by another manager: the device could not be asked.
      if (error instanceof NetconfRpcError) throw new DeviceError('busy', `${device}: no preview: the candidate is locked (${why(error)})`, true);
      throw error;
    });
    try {
      await discardChanges(s);
      try {
        await editCandidate(s, device, fragment.text);
        await validateCandidate(s);
      } catch (error) {
        if (!(error instanceof NetconfRpcError)) throw error;
        return answer({ accepted: false, added: [], removed: [], problems: [why(error)] });
      }
      const candidate = new Set(leafLines(await getConfig(s, 'candidate')));
      const runningLines = leafLines(await getConfig(s, 'running'));
      const running = new Set(runningLines);
      return answer({
        accepted: true,
        added: [...candidate].filter((l) => !running.has(l)),
        removed: [...running].filter((l) => !candidate.has(l)),
        problems: [],
        // Applied as a confirmed commit: unless confirmed, the device itself goes back to running as read here.
        rollback: { method: 'device_reverts', lines: [] },
        // The datastore as leaf lines: the change is committed only on this one (netconf/device.ts).
        fingerprint: { sha256: remember(runningLines), source: 'netconf-running' },
      });
    } finally {
      await discardChanges(s).catch(() => {});
      await unlock(s, 'candidate').catch(() => {});
    }
  } finally {
    await s.close();
  }
}
