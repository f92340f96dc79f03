import { elements, parseXml, XmlError, type XmlElement } from './xml';

/** The NETCONF 1.0 end-of-message marker (RFC 6242 §4.3). */
export const NETCONF_EOM = ']]>]]>';
/** The NETCONF base namespace (RFC 6241). */
export const NETCONF_NS = 'urn:ietf:params:xml:ns:netconf:base:1.0';

/** Control characters other than tab (the lines are joined with newlines here, never inside one). */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/u;

export interface ApprovedFragment {
  /** Exactly the approved lines joined with "\n": what goes inside `<edit-config>`, unchanged. */
  text: string;
  /** The same text parsed, for the read-back comparison. */
  config: XmlElement;
}

/** Lines that are not one XML `<config>` element a NETCONF device may take; the message names why. */
export class FragmentRefused extends Error {
  override readonly name = 'FragmentRefused';
}

/**
 * How "lines" map to NETCONF: for a netconf device the approved lines are one XML `<config>`
 * element (RFC 6241 §7.2), its lines in order. The relay's guard compares them with the approval
 * exactly as it does CLI lines; the device service joins them with newlines and sends them inside
 * `<edit-config>` byte for byte, never rewritten. The runbook validator applies the same check, so
 * a RAW whose lines a device would refuse fails when it is written. Checked:
 * - well-formed XML with one root, `config` (no namespace, or the NETCONF base namespace);
 * - no DOCTYPE (no entities), no processing instruction (an `<?xml …?>` inside the RPC would make
 *   it malformed), no control characters, and no `]]>]]>` (the NETCONF 1.0 end-of-message marker:
 *   it would end the RPC early and turn the rest into a second, unapproved one);
 * - every prefix declared inside the fragment, every top-level element in its YANG module's
 *   namespace (without one it would inherit NETCONF's own namespace from the RPC around it).
 */
export function checkFragment(device: string, lines: string[]): ApprovedFragment {
  const refuse = (why: string) => new FragmentRefused(`${device}: a NETCONF change is one XML <config> element; ${why}`);
  if (lines.length === 0 || lines.every((l) => !l.trim())) throw refuse('no lines were given');
  for (const [i, line] of lines.entries()) if (CONTROL.test(line)) throw refuse(`line ${i + 1} has a control character or line separator`);
  const text = lines.join('\n');
  if (text.includes(NETCONF_EOM)) throw refuse(`"${NETCONF_EOM}" (the NETCONF 1.0 end-of-message marker) is refused`);
  if (text.includes('<?')) throw refuse('an XML declaration or processing instruction is refused (the fragment goes inside an RPC)');
  let config: XmlElement;
  try {
    config = parseXml(text);
  } catch (error) {
    throw refuse(`it is not well-formed XML: ${error instanceof XmlError ? error.message : String(error)}`);
  }
  if (config.local !== 'config' || (config.ns !== undefined && config.ns !== NETCONF_NS)) {
    throw refuse(`the root element is <${config.name}>${config.ns ? ` in ${config.ns}` : ''}, not <config>`);
  }
  const top = elements(config);
  if (top.length === 0) throw refuse('<config> is empty');
  for (const el of top) {
    if (!el.ns || el.ns === NETCONF_NS) throw refuse(`<${el.name}> has no namespace of its own: give it its YANG module's xmlns`);
  }
  if (config.children.some((c) => typeof c === 'string' && c.trim())) throw refuse('<config> holds text outside its elements');
  return { text, config };
}
