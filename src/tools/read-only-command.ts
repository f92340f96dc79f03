/**
 * The one definition of a read-only device command, shared by the artifact validator,
 * the relay's device guard and the lab. It is deliberately narrow: a single `show`
 * line whose output may only be filtered, never written anywhere.
 */

/**
 * Output filters that only read. Abbreviations are accepted as IOS accepts them (`| i`, `| sec`),
 * unless they could also abbreviate a modifier that writes (`| s`, `| e`).
 */
export const READ_ONLY_FILTERS = ['include', 'exclude', 'begin', 'section', 'count'] as const;

/**
 * Pipe modifiers that write, send or run something (IOS `redirect`/`append`/`tee`, NX-OS and
 * EOS `save`, `json`-to-file forms, shells). A segment that starts with any prefix of one of
 * these is refused, so `| red flash:x` is caught as well as `| redirect flash:x`.
 */
const WRITING_MODIFIERS = ['redirect', 'append', 'tee', 'save', 'format', 'write', 'copy', 'file', 'email', 'exec', 'script', 'python', 'bash', 'shell', 'run', 'cli'];

/** C0/C1 controls (CR, LF, VT, FF, TAB, NEL…), DEL, and the Unicode line and paragraph separators. */
const LINE_BREAKERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

export type ReadOnlyVerdict = { ok: true } | { ok: false; reason: string };
const no = (reason: string): ReadOnlyVerdict => ({ ok: false, reason });

const firstWord = (segment: string) => segment.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
const isWriting = (word: string) => word.length > 0 && WRITING_MODIFIERS.some((m) => m.startsWith(word));
const isFilter = (word: string) => word.length > 0 && READ_ONLY_FILTERS.some((f) => f.startsWith(word)) && !isWriting(word);
/** `show`, or `sh`/`sho` as a router's CLI accepts. */
const isShow = (word: string) => word.length >= 2 && 'show'.startsWith(word);

export function checkReadOnlyCommand(command: string): ReadOnlyVerdict {
  if (LINE_BREAKERS.test(command)) return no('one line only: control characters and line separators are refused');
  if (command.includes(';')) return no('one command only: ";" is refused');
  if (command.includes('>')) return no('output redirection (">") is refused');
  const [head = '', ...pipes] = command.split('|');
  if (!isShow(firstWord(head)) || head.trim().split(/\s+/).length < 2) return no('only a "show …" command is read-only');
  if (pipes.length === 0) return { ok: true };
  if (!isFilter(firstWord(pipes[0] ?? ''))) return no(`only these output filters are allowed after "|": ${READ_ONLY_FILTERS.join(', ')}`);
  for (const segment of pipes) {
    const word = firstWord(segment);
    if (!segment.trim()) return no('an empty "|" segment is refused');
    // A later segment is either another filter, or part of the filter's regex (`include A|B`),
    // unless it could be read as a modifier that writes.
    if (!isFilter(word) && isWriting(word)) return no(`"| ${word}" could write or run something; only ${READ_ONLY_FILTERS.join(', ')} are allowed`);
  }
  return { ok: true };
}

export const isReadOnlyCommand = (command: string) => checkReadOnlyCommand(command).ok;
