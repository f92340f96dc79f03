import { readFile, realpath, stat } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';

/**
 * The page's policy, sent as a header (the build's index.html carries the same as a meta tag,
 * which cannot express frame-ancestors). Nothing inline, nothing from elsewhere.
 */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export interface StaticFile {
  body: Buffer;
  contentType: string;
  cacheControl: string;
}

export class StaticPathError extends Error {}

/**
 * A file of the built renderer by its path below /ui/. Refuses anything that could leave the
 * build folder (.., encoded or not, backslashes, NUL, symlinks out) and unknown file types.
 * Returns undefined when there is no such file.
 */
export async function readStaticFile(distDir: string, relPath: string): Promise<StaticFile | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(relPath);
  } catch {
    throw new StaticPathError('malformed path');
  }
  const parts = decoded.split('/');
  if (decoded.includes('\\') || decoded.includes('\0') || parts.some((p) => p === '..' || p === '.') || decoded.startsWith('/')) {
    throw new StaticPathError('path outside the UI');
  }
  const contentType = CONTENT_TYPES[extname(decoded).toLowerCase()];
  if (!contentType) return undefined;

  let root: string;
  let file: string;
  try {
    root = await realpath(distDir);
    file = await realpath(join(root, ...parts));
  } catch {
    return undefined;
  }
  if (!file.startsWith(root + sep)) throw new StaticPathError('path outside the UI');
  if (!(await stat(file)).isFile()) return undefined;
  // Vite names built assets by content hash: they never change under the same name.
  const hashed = parts[0] === 'assets' && /-[A-Za-z0-9_-]{8,}\.\w+$/.test(decoded);
  return {
    body: await readFile(file),
    contentType,
    // private: the UI sits behind the relay's bearer; shared caches keep nothing.
    cacheControl: hashed ? 'private, max-age=31536000, immutable' : 'no-cache',
  };
}
