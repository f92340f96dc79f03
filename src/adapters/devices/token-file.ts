import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes the device server's bearer to `path`, readable by its owner only. Removed first and created
 * exclusively: an existing file would keep its old mode, and a link planted there is not followed.
 */
export function writeTokenFile(path: string, token: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  rmSync(path, { force: true });
  writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
}

/** `'…'` for a POSIX shell: the path is pasted into a command line as it is. */
const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The lines to start a relay against this device server, naming the token's FILE: the token itself is
 * never printed (a terminal's scrollback and a CI log are read by more people than the file is).
 */
export function relayEnvLines(mcpUrl: string, tokenFile: string): string[] {
  return [`DEVICE_MCP_URL=${mcpUrl}`, `DEVICE_MCP_TOKEN="$(cat ${shellQuote(tokenFile)})"`];
}
