import { NETCONF_NS } from './rpc-error';
import { attr, canonical, elements, isContainer, textOf, type XmlElement } from '../../../runbooks/xml';

/**
 * Read-back checks. A NETCONF server answering `<ok/>` to a commit is not proof that running holds
 * the change (netconfd 2.13 answers `<ok/>` to a commit it silently skipped, see operations.ts),
 * so after every commit running is read again and compared with what was approved.
 *
 * "Contains" is the comparison for an edit with the default `merge`: every element of the approved
 * fragment must be in running with the same leaf values (running may hold more: everything else
 * the device has). An element marked `nc:operation="delete"` or `"remove"` must be absent.
 * `replace` and `create` are held to the same containment (their extra effect, removing siblings
 * not named, is the server's to enforce, and the confirmed commit is the net for it).
 */

const sameName = (a: XmlElement, b: XmlElement) => a.local === b.local && a.ns === b.ns;
const operationOf = (el: XmlElement) => attr(el, 'operation', NETCONF_NS);

/** `neighbor[address="10.0.0.2"]`: a list entry named by its first leaf (usually its key) in messages. */
function label(el: XmlElement): string {
  const firstLeaf = elements(el).find((c) => !isContainer(c) && textOf(c));
  return isContainer(el) && firstLeaf ? `${el.local}[${firstLeaf.local}="${textOf(firstLeaf)}"]` : el.local;
}

/** What is wrong with `have` as an instance of `want` (empty: it contains it). */
function problems(want: XmlElement, have: XmlElement, path: string): string[] {
  if (!isContainer(want)) {
    const expected = textOf(want);
    // An empty element (an empty leaf, a presence container) only has to exist.
    if (!expected || expected === textOf(have)) return [];
    return [`${path} is "${textOf(have)}", the change sets "${expected}"`];
  }
  return elements(want).flatMap((c) => check(c, elements(have), `${path}/${label(c)}`));
}

function check(want: XmlElement, siblings: XmlElement[], path: string): string[] {
  const same = siblings.filter((s) => sameName(s, want));
  const op = operationOf(want);
  if (op === 'delete' || op === 'remove') {
    return same.some((s) => problems(want, s, path).length === 0) ? [`${path} is still there, the change removes it`] : [];
  }
  if (same.length === 0) return [`${path} is missing`];
  const found = same.map((s) => problems(want, s, path));
  if (found.some((p) => p.length === 0)) return [];
  // The closest entry explains best (the right key, a wrong value).
  return found.reduce((best, p) => (p.length < best.length ? p : best));
}

/** Every way `data` (a `<data>` of get-config) falls short of the approved `<config>` fragment. */
export function missingFrom(fragment: XmlElement, data: XmlElement): string[] {
  return elements(fragment).flatMap((c) => check(c, elements(data), `/${label(c)}`));
}

/** Exact equality of two configurations, up to prefixes and formatting (see `canonical`). */
export const sameConfig = (a: XmlElement, b: XmlElement) => canonical(a) === canonical(b);

/** Where two configurations differ, as short paths, for an error message (at most `limit`). */
export function configDifference(before: XmlElement, after: XmlElement, limit = 10): string[] {
  const out: string[] = [];
  const walk = (a: XmlElement | undefined, b: XmlElement | undefined, path: string) => {
    if (out.length >= limit) return;
    if (!a || !b) return void out.push(`${path} ${a ? 'was removed' : 'was added'}`);
    if (canonical(a) === canonical(b)) return;
    if (!isContainer(a) || !isContainer(b)) return void out.push(`${path} was "${textOf(a)}", is "${textOf(b)}"`);
    const key = (e: XmlElement) => `${e.ns}|${label(e)}`;
    const left = new Map(elements(a).map((e) => [key(e), e]));
    const right = new Map(elements(b).map((e) => [key(e), e]));
    for (const k of new Set([...left.keys(), ...right.keys()])) {
      const e = (left.get(k) ?? right.get(k))!;
      walk(left.get(k), right.get(k), `${path}/${label(e)}`);
    }
  };
  walk(before, after, '');
  return out;
}
