import { child, elements, pretty, textOf, type XmlElement } from '../../../runbooks/xml';
import { NETCONF_NS } from '../../../runbooks/netconf-fragment';

export { NETCONF_NS };

/** One `<rpc-error>` (RFC 6241 §4.3), with the fields a person needs to see what was refused and where. */
export interface RpcErrorDetail {
  type: string;
  /** e.g. `invalid-value`, `lock-denied`, `in-use`, `data-missing`, `operation-failed`. */
  tag: string;
  severity: string;
  appTag?: string;
  /** XPath of the node in error, as the server wrote it (its prefixes). */
  path?: string;
  message?: string;
  /** `<error-info>` flattened to `name=value` pairs (bad-element, bad-value, session-id …). */
  info: string[];
}

/**
 * A device's refusal of one operation. The message is complete on its own: operation, tag,
 * the server's words and the path, so the error an operator sees names what to fix.
 */
export class NetconfRpcError extends Error {
  constructor(
    readonly operation: string,
    readonly errors: RpcErrorDetail[],
  ) {
    super(`${operation} refused: ${errors.map(describeRpcError).join('; ')}`);
  }

  /** True when one of the errors has this tag. */
  has(tag: string): boolean {
    return this.errors.some((e) => e.tag === tag);
  }
}

export function describeRpcError(e: RpcErrorDetail): string {
  const parts = [`[${e.tag}${e.appTag ? `/${e.appTag}` : ''}]`, e.message ?? '(no error-message)'];
  if (e.path) parts.push(`at ${e.path}`);
  if (e.info.length) parts.push(`(${e.info.join(', ')})`);
  return parts.join(' ');
}

/** Every `<rpc-error>` of a reply, in order, warnings included (see `failures`). */
export function parseRpcErrors(reply: XmlElement): RpcErrorDetail[] {
  return elements(reply)
    .filter((e) => e.local === 'rpc-error' && e.ns === NETCONF_NS)
    .map((e) => {
      const field = (name: string) => textOf(child(e, name, NETCONF_NS)) || undefined;
      const info = child(e, 'error-info', NETCONF_NS);
      return {
        type: field('error-type') ?? 'unknown',
        tag: field('error-tag') ?? 'unknown',
        severity: field('error-severity') ?? 'error',
        appTag: field('error-app-tag'),
        path: field('error-path'),
        message: field('error-message'),
        info: info ? elements(info).map((i) => (elements(i).length ? `${i.local}=${pretty(i).replace(/\s+/g, ' ')}` : `${i.local}=${textOf(i)}`)) : [],
      };
    });
}

/**
 * The errors that fail the operation. RFC 6241 lets a reply carry `<rpc-error>` with severity
 * `warning` next to `<ok/>` or data; those are reported by the caller, not thrown.
 */
export const failures = (errors: RpcErrorDetail[]) => errors.filter((e) => e.severity !== 'warning');
