import { createHash } from 'node:crypto';

/**
 * Entering and leaving configuration mode is not a change: the RAW's repair lines may
 * carry `configure terminal` … `end` while the device tool adds them itself.
 */
const MODE_LINE = /^\s*(configure(\s+terminal)?|conf\s+t|end)\s*$/i;

/**
 * The lines a human approves and the guard compares, verbatim: case and leading
 * indentation matter on a router (a description, a regex, a nested block), so only
 * trailing whitespace and the mode lines are left out.
 */
export function canonicalLines(commands: readonly string[]): string[] {
  return commands.map((line) => line.replace(/\s+$/, '')).filter((line) => line.length > 0 && !MODE_LINE.test(line));
}

/** Hex SHA-256 of the canonical lines joined with "\n": shown with the lines, checked by the guard. */
export function linesSha256(commands: readonly string[]): string {
  return createHash('sha256').update(canonicalLines(commands).join('\n')).digest('hex');
}

/** The 12 characters shown to people next to the lines. */
export const shortHash = (sha256: string) => sha256.slice(0, 12);
