import { DeviceError } from '../errors';
import { NETCONF_NS } from './rpc-error';
import { BASE_11, YUMA_NCX, type NetconfSession } from './session';
import { child, elements, serialize, type XmlElement } from '../../../runbooks/xml';

/**
 * The RFC 6241 operations the change flow uses, one function each, with the capability each one
 * needs checked first so a device that lacks it fails with a sentence, not an `operation-not-supported`.
 */
export type Datastore = 'running' | 'candidate';

export const CAP = {
  candidate: 'urn:ietf:params:netconf:capability:candidate:1.0',
  confirmed10: 'urn:ietf:params:netconf:capability:confirmed-commit:1.0',
  confirmed11: 'urn:ietf:params:netconf:capability:confirmed-commit:1.1',
  validate10: 'urn:ietf:params:netconf:capability:validate:1.0',
  validate11: 'urn:ietf:params:netconf:capability:validate:1.1',
  rollbackOnError: 'urn:ietf:params:netconf:capability:rollback-on-error:1.0',
  /** yuma123's own namespace: its netconfd lists it. Used only to pick the validate form below. */
  yuma: YUMA_NCX,
} as const;

function need(s: NetconfSession, device: string, what: string, ...caps: string[]): void {
  if (!caps.some((c) => s.has(c))) throw new DeviceError('rejected', `${device}: ${what} needs ${caps.join(' or ')}, which the device does not list in its hello`, true);
}

/** `<get-config>` of a whole datastore: the `<data>` element. */
export async function getConfig(s: NetconfSession, source: Datastore): Promise<XmlElement> {
  const reply = await s.rpc(`<get-config><source><${source}/></source></get-config>`, `get-config ${source}`);
  const data = child(reply, 'data', NETCONF_NS);
  if (!data) throw new DeviceError('session_lost', `get-config ${source}: the reply has no <data>`, true);
  return data;
}

export const lock = (s: NetconfSession, target: Datastore) => s.rpc(`<lock><target><${target}/></target></lock>`, `lock ${target}`);
export const unlock = (s: NetconfSession, target: Datastore) => s.rpc(`<unlock><target><${target}/></target></unlock>`, `unlock ${target}`);
export const discardChanges = (s: NetconfSession) => s.rpc('<discard-changes/>', 'discard-changes');

/**
 * `<edit-config>` on the candidate with `fragment`, the approved `<config>` element as text, sent
 * byte for byte (it is what a person approved). `rollback-on-error` when the device has it, so a
 * refused edit leaves nothing half-applied in the candidate even before the discard.
 */
export function editCandidate(s: NetconfSession, device: string, fragment: string) {
  need(s, device, 'a candidate edit', CAP.candidate);
  const errorOption = s.has(CAP.rollbackOnError) ? '<error-option>rollback-on-error</error-option>' : '';
  return s.rpc(`<edit-config><target><candidate/></target><default-operation>merge</default-operation>${errorOption}${fragment}</edit-config>`, 'edit-config candidate');
}

/**
 * `<validate>` of the candidate. Measured on netconfd 2.13 (yuma123, Debian 12): after
 * `<validate><source><candidate/>`, the next `<commit>` answers `<ok/>` but leaves running
 * unchanged and resets the candidate (its edit marks are cleared), with or without `<confirmed/>`.
 * Validating the same content sent inline (`<source><config>`, also RFC 6241 §8.6) has no such
 * effect, so for that server the candidate is read (it is locked, so it cannot change) and sent
 * back as the source. Other servers get the standard form. The read-back after the commit would
 * catch the silent no-op either way; this keeps the change from failing for it.
 */
export async function validateCandidate(s: NetconfSession): Promise<'validated' | 'not-supported'> {
  if (!s.has(CAP.validate10) && !s.has(CAP.validate11)) return 'not-supported';
  if (s.has(CAP.yuma)) {
    const data = await getConfig(s, 'candidate');
    const inner = elements(data).map((e) => serialize(e)).join('');
    await s.rpc(`<validate><source><config>${inner}</config></source></validate>`, 'validate candidate (content sent inline)');
    return 'validated';
  }
  await s.rpc('<validate><source><candidate/></source></validate>', 'validate candidate');
  return 'validated';
}

/** A plain `<commit>`: commits the candidate, and confirms a pending confirmed commit of this session. */
export const commit = (s: NetconfSession) => s.rpc('<commit/>', 'commit');

/** `<commit><confirmed/>`: the device reverts the change after `timeoutS` unless it is confirmed (RFC 6241 §8.4). */
export function commitConfirmed(s: NetconfSession, device: string, timeoutS: number) {
  need(s, device, 'a confirmed commit', CAP.confirmed10, CAP.confirmed11);
  return s.rpc(`<commit><confirmed/><confirm-timeout>${Math.trunc(timeoutS)}</confirm-timeout></commit>`, 'commit confirmed');
}

/** `<cancel-commit>` (RFC 6241 §8.4, :confirmed-commit:1.1 on a base:1.1 session): reverts at once. */
export function cancelCommit(s: NetconfSession, device: string) {
  need(s, device, '<cancel-commit>', CAP.confirmed11);
  if (s.framing !== '1.1' || !s.has(BASE_11)) throw new DeviceError('rejected', `${device}: <cancel-commit> needs a base:1.1 session; this one is base:1.0`, true);
  return s.rpc('<cancel-commit/>', 'cancel-commit');
}
