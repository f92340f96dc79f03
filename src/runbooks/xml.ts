/**
 * The little XML NETCONF needs: a strict, non-validating parser with namespaces, and a canonical
 * form to compare configurations. The project has no XML dependency, and a device reply is
 * untrusted input, so this parser refuses DOCTYPE (no entity expansion, no external entities) and
 * anything malformed rather than guessing.
 */

export const XML_NS = 'http://www.w3.org/XML/1998/namespace';

export interface XmlAttr {
  /** As written, `prefix:local` or `local`. */
  name: string;
  local: string;
  /** Namespace URI of a prefixed attribute; unprefixed attributes have none (XML Namespaces §6.2). */
  ns: string | undefined;
  value: string;
}

export interface XmlElement {
  name: string;
  local: string;
  /** Namespace URI the element's prefix (or the default namespace) is bound to. */
  ns: string | undefined;
  /** Attributes other than namespace declarations. */
  attrs: XmlAttr[];
  children: XmlNode[];
  /** Namespace declarations written on this element, [prefix ('' for the default), URI]. */
  decls: Array<[string, string]>;
  /** Every binding in scope here, inherited ones included: what a QName in leaf text (an identityref) resolves against. */
  scope: ReadonlyMap<string, string>;
}
export type XmlNode = XmlElement | string;

export class XmlError extends Error {}

const NAME = /^[A-Za-z_][\w.-]*(:[A-Za-z_][\w.-]*)?$/;
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(text: string, at: number): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#\d{1,7}|[A-Za-z]{1,8});|&/g, (whole, ref: string | undefined) => {
    if (ref && ref in ENTITIES) return ENTITIES[ref]!;
    const code = ref?.startsWith('#x') ? parseInt(ref.slice(2), 16) : ref?.startsWith('#') ? Number(ref.slice(1)) : NaN;
    if (!Number.isInteger(code) || code <= 0 || code > 0x10ffff) throw new XmlError(`bad entity "${whole}" near offset ${at}`);
    return String.fromCodePoint(code);
  });
}

const split = (qname: string): [string | undefined, string] => {
  const i = qname.indexOf(':');
  return i === -1 ? [undefined, qname] : [qname.slice(0, i), qname.slice(i + 1)];
};

/** Parses one XML document (a declaration, comments and processing instructions around one root are allowed). */
export function parseXml(text: string): XmlElement {
  let pos = 0;
  let root: XmlElement | undefined;
  const stack: Array<{ el: XmlElement; scope: Map<string, string> }> = [];
  const fail = (why: string): never => {
    throw new XmlError(`${why} at offset ${pos}`);
  };
  const addText = (t: string) => {
    if (!t) return;
    const top = stack[stack.length - 1];
    if (top) top.el.children.push(t);
    else if (t.trim()) fail('text outside the root element');
  };

  while (pos < text.length) {
    const lt = text.indexOf('<', pos);
    if (lt === -1) {
      addText(decode(text.slice(pos), pos));
      break;
    }
    const raw = text.slice(pos, lt);
    if (raw.includes(']]>')) fail('"]]>" in text');
    addText(decode(raw, pos));
    pos = lt;
    if (text.startsWith('<!--', pos)) {
      const end = text.indexOf('-->', pos + 4);
      if (end === -1) fail('unterminated comment');
      pos = end + 3;
    } else if (text.startsWith('<![CDATA[', pos)) {
      const end = text.indexOf(']]>', pos + 9);
      if (end === -1) fail('unterminated CDATA');
      if (!stack.length) fail('CDATA outside the root element');
      addText(text.slice(pos + 9, end));
      pos = end + 3;
    } else if (text.startsWith('<?', pos)) {
      const end = text.indexOf('?>', pos + 2);
      if (end === -1) fail('unterminated processing instruction');
      pos = end + 2;
    } else if (text.startsWith('<!', pos)) {
      fail('DOCTYPE and other declarations are refused');
    } else if (text.startsWith('</', pos)) {
      const end = text.indexOf('>', pos);
      if (end === -1) fail('unterminated end tag');
      const name = text.slice(pos + 2, end).trim();
      const top = stack.pop();
      if (!top || top.el.name !== name) fail(`</${name}> does not close <${top?.el.name ?? '(nothing)'}>`);
      pos = end + 1;
    } else {
      if (root && !stack.length) fail('a second root element');
      pos = openTag(text, pos, stack, (el) => (root ??= el), fail);
    }
  }
  if (stack.length) throw new XmlError(`<${stack[stack.length - 1]!.el.name}> is not closed`);
  if (!root) throw new XmlError('no element');
  return root;
}

/** Reads `<name attr="v" …>` or `<name …/>` at `start`; returns the offset after it. */
function openTag(text: string, start: number, stack: Array<{ el: XmlElement; scope: Map<string, string> }>, isRoot: (el: XmlElement) => void, fail: (why: string) => never): number {
  const tagName = /<([^\s/>]+)/y;
  tagName.lastIndex = start;
  const m = tagName.exec(text);
  if (!m || !NAME.test(m[1]!)) fail('bad element name');
  const name = m[1]!;
  let pos = tagName.lastIndex;
  const raw: Array<[string, string]> = [];
  // Sticky expressions read in place: no copy of the rest of the document per attribute.
  const space = /\s*/y;
  const attribute = /([^\s=/>]+)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/y;
  for (;;) {
    space.lastIndex = pos;
    const ws = space.exec(text)![0].length;
    pos += ws;
    if (pos >= text.length) fail(`<${name}> is not closed`);
    if (text.startsWith('/>', pos) || text.startsWith('>', pos)) break;
    attribute.lastIndex = pos;
    const a = attribute.exec(text);
    if (!a || !ws || !NAME.test(a[1]!)) fail(`bad attribute in <${name}>`);
    if (raw.some(([n]) => n === a[1])) fail(`attribute ${a[1]} twice in <${name}>`);
    raw.push([a[1]!, decode(a[2] ?? a[3] ?? '', pos)]);
    pos = attribute.lastIndex;
  }
  const selfClosing = text.startsWith('/>', pos);
  pos += selfClosing ? 2 : 1;

  const parent = stack[stack.length - 1]?.scope;
  const scope = new Map(parent ?? [['xml', XML_NS]]);
  for (const [n, v] of raw) {
    if (n === 'xmlns') scope.set('', v);
    else if (n.startsWith('xmlns:')) scope.set(n.slice(6), v);
  }
  const resolve = (prefix: string | undefined, isAttr: boolean) => {
    if (prefix === undefined) return isAttr ? undefined : scope.get('') || undefined;
    const ns = scope.get(prefix);
    if (ns === undefined) fail(`prefix "${prefix}" is not declared`);
    return ns;
  };
  const [prefix, local] = split(name);
  const el: XmlElement = {
    name,
    local,
    ns: resolve(prefix, false),
    attrs: raw
      .filter(([n]) => n !== 'xmlns' && !n.startsWith('xmlns:'))
      .map(([n, value]) => {
        const [p, l] = split(n);
        return { name: n, local: l, ns: resolve(p, true), value };
      }),
    children: [],
    decls: raw.filter(([n]) => n === 'xmlns' || n.startsWith('xmlns:')).map(([n, v]) => [n === 'xmlns' ? '' : n.slice(6), v]),
    scope,
  };
  const top = stack[stack.length - 1];
  if (top) top.el.children.push(el);
  else isRoot(el);
  if (!selfClosing) stack.push({ el, scope });
  return pos;
}

export const elements = (el: XmlElement): XmlElement[] => el.children.filter((c): c is XmlElement => typeof c !== 'string');

/** The first child element with this local name (and namespace, when given). */
export const child = (el: XmlElement, local: string, ns?: string): XmlElement | undefined =>
  elements(el).find((c) => c.local === local && (ns === undefined || c.ns === ns));

/** The element's own text (its text children joined), trimmed. */
export const textOf = (el: XmlElement | undefined): string => (el ? el.children.filter((c): c is string => typeof c === 'string').join('').trim() : '');

export const attr = (el: XmlElement, local: string, ns?: string): string | undefined => el.attrs.find((a) => a.local === local && a.ns === ns)?.value;

/** True when the element has element children (its whitespace text is formatting, not content). */
export const isContainer = (el: XmlElement) => el.children.some((c) => typeof c !== 'string');

export const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A canonical form for comparing configurations: namespace URIs instead of prefixes, attributes
 * sorted, formatting whitespace dropped, leaf text trimmed. Two get-config answers that differ only
 * in prefixes or indentation compare equal; any difference in data does not.
 */
export function canonical(el: XmlElement): string {
  const attrs = [...el.attrs].map((a) => ` {${a.ns ?? ''}}${a.local}="${escapeXml(a.value)}"`).sort().join('');
  const body = isContainer(el) ? elements(el).map(canonical).join('') : escapeXml(textOf(el));
  return `<{${el.ns ?? ''}}${el.local}${attrs}>${body}</>`;
}

/** Indented XML for people to read (exec output, error messages); declarations per namespace change. */
export function pretty(el: XmlElement, depth = 0, parentNs?: string): string {
  const pad = '  '.repeat(depth);
  const nsDecl = el.ns !== parentNs && el.ns ? ` xmlns="${escapeXml(el.ns)}"` : '';
  const attrs = el.attrs.filter((a) => !a.ns).map((a) => ` ${a.local}="${escapeXml(a.value)}"`).join('');
  const open = `${pad}<${el.local}${nsDecl}${attrs}`;
  if (!isContainer(el)) {
    const text = textOf(el);
    return text ? `${open}>${escapeXml(text)}</${el.local}>` : `${open}/>`;
  }
  return [`${open}>`, ...elements(el).map((c) => pretty(c, depth + 1, el.ns)), `${pad}</${el.local}>`].join('\n');
}

/**
 * The element back to text as written (its prefixes, its attributes), with every namespace binding
 * in scope declared on it, so it stands alone: an identityref such as `ianaift:ethernetCsmacd` in
 * leaf text keeps the prefix declared on some ancestor. Children keep their own declarations.
 */
export function serialize(el: XmlElement, standalone = true): string {
  const decls = standalone ? [...el.scope].filter(([p]) => p !== 'xml') : el.decls;
  const ns = decls.map(([p, uri]) => ` ${p ? `xmlns:${p}` : 'xmlns'}="${escapeXml(uri)}"`).join('');
  const attrs = el.attrs.map((a) => ` ${a.name}="${escapeXml(a.value)}"`).join('');
  const body = el.children.map((c) => (typeof c === 'string' ? escapeXml(c) : serialize(c, false))).join('');
  return `<${el.name}${ns}${attrs}>${body}</${el.name}>`;
}
