import { createHash } from 'node:crypto';
import type { EvidenceBundle, EvidenceContent as Content } from './evidence-schema';

/**
 * The evidence bundle's manifest: every part hashed in a way anyone can redo without this code,
 * so a copy of a bundle can be checked against the one the relay gave.
 * Canonical JSON: object keys sorted at every level and no whitespace, the same bytes for the same value.
 */
/** JSON with object keys sorted at every level and no whitespace: the same bytes for the same value. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The parts the manifest hashes, by JSON pointer; text parts are hashed as their UTF-8 bytes. */
export function partsOf(content: Content): { path: string; kind: 'json' | 'text'; value: unknown }[] {
  const parts: { path: string; kind: 'json' | 'text'; value: unknown }[] = [{ path: '/incident', kind: 'json', value: content.incident }];
  if (content.approval_request) {
    parts.push({ path: '/approval_request', kind: 'json', value: content.approval_request });
    parts.push({ path: '/approval_request/lines', kind: 'text', value: content.approval_request.lines.join('\n') });
    if (content.approval_request.preview !== null) parts.push({ path: '/approval_request/preview', kind: 'json', value: content.approval_request.preview });
  }
  if (content.decision) parts.push({ path: '/decision', kind: 'json', value: content.decision });
  if (content.policy) parts.push({ path: '/policy', kind: 'json', value: content.policy });
  content.before.forEach((o, i) => parts.push({ path: `/before/${i}/output`, kind: 'text', value: o.output }));
  content.after.forEach((o, i) => parts.push({ path: `/after/${i}/output`, kind: 'text', value: o.output }));
  parts.push({ path: '/change', kind: 'json', value: content.change });
  return parts;
}

export const hashPart = (kind: 'json' | 'text', value: unknown) => sha256Hex(kind === 'text' ? String(value) : canonicalJson(value));

export const MANIFEST_ENCODING =
  'json parts: SHA-256 of canonical JSON (object keys sorted, no whitespace, UTF-8); text parts: SHA-256 of the UTF-8 text; ' +
  '/approval_request/lines is the lines joined with "\\n" (equal to lines_sha256 unless a line was redacted); content_sha256: the bundle without manifest, canonical JSON';

function resolvePointer(root: unknown, path: string): unknown {
  let at: unknown = root;
  for (const key of path.split('/').slice(1)) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** Which parts of a bundle no longer match its manifest (empty: it is as the relay made it). */
export function verifyEvidenceBundle(bundle: EvidenceBundle): string[] {
  const { manifest, ...content } = bundle;
  const problems: string[] = [];
  for (const part of manifest.parts) {
    const value = resolvePointer(content, part.path);
    const text = part.kind === 'text' && part.path === '/approval_request/lines' && Array.isArray(value) ? value.join('\n') : value;
    if (value === undefined || hashPart(part.kind, text) !== part.sha256) problems.push(part.path);
  }
  if (sha256Hex(canonicalJson(content)) !== manifest.content_sha256) problems.push('content_sha256');
  return problems;
}
