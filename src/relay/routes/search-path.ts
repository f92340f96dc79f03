import { HttpError } from '../errors';

/**
 * What makes a path mean something else to the upstream than to the relay. Servers differ in how
 * they read these (Tomcat and Spring take `..;/` as `../`, some stop at a NUL, some decode twice or
 * treat `\` and `%2f` as `/`), so a path carrying any of them is refused instead of guessed at.
 */
const REFUSED: [RegExp, string][] = [
  [/%25/i, 'an encoded "%" (double encoding)'],
  [/%2f|%5c/i, 'an encoded path separator (%2f, %5c)'],
  [/\\/, 'a backslash'],
  [/;|%3b/i, 'a ";" (path parameters)'],
  [/%00|%[01][0-9a-f]|%7f|[\x00-\x1f\x7f]/i, 'a NUL or another control character'],
];

const refuse = (why: string) => new HttpError(400, 'invalid_path', `The search-platform proxy refuses this path: it carries ${why}.`);

/**
 * The part of the path after the proxy's prefix, checked: it is forwarded only if, decoded once,
 * it stays below the prefix (no `.` or `..` segment) and carries nothing an upstream could read
 * differently. Returns the path as received, which is what is forwarded.
 */
export function checkedUpstreamPath(path: string): string {
  for (const [pattern, why] of REFUSED) if (pattern.test(path)) throw refuse(why);
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    throw new HttpError(400, 'invalid_path', 'The search-platform proxy refuses this path: it is not valid percent-encoding.');
  }
  // Decoding once cannot bring back anything refused above (no %25 is left to decode twice), but the
  // segments are read from the decoded path: `%2e%2e` is `..` to many servers.
  for (const [pattern, why] of REFUSED.slice(2)) if (pattern.test(decoded)) throw refuse(why);
  if (decoded.split('/').some((s) => s === '..' || s === '.')) throw refuse('a "." or ".." segment (outside the proxy\'s prefix)');
  return path;
}
