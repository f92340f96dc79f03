import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../config/load';
import shipped from './runtime-manifest.json';
import { z } from 'zod';
import { runtimeConfigShapeSchema, type RuntimeConfigShape } from './runtime-config';
import { errorText } from '../../core/error-body';

/**
 * The runtime's own configuration (agent files, `opencode.json`, anything else opencode loads
 * from `.opencode/`) decides which tools a model gets. A runtime or a person that changed one of
 * them changes what every run may do, so the relay compares them with what it ships before it
 * starts the runtime and before each run, and refuses while they differ.
 *
 * What opencode 1.18.33 loads from a project (read from its binary): `opencode.json(c)` at the
 * root, and from `.opencode/`: `opencode.json(c)`, `{agent,agents}/**\/*.md`, `{mode,modes}/*.md`
 * (primary agents), `{command,commands}/**\/*.md`, `{plugin,plugins}/*.{ts,js}` and
 * `{tool,tools}/*.{js,ts}` (both imported into the runtime's own process), `{skill,skills}/**`.
 * Every file under `.opencode/` therefore counts, except what opencode writes there itself for
 * its dependency install (below). It does not load plugins from those: `package.json` is only
 * installed (npm's Arborist with `ignoreScripts: true`, so no install scripts run) and
 * `node_modules` is only reached by `import` from a plugin or tool file, which is itself a
 * difference here.
 */
const RUNTIME_WRITES = new Set(['node_modules', 'package.json', 'package-lock.json', 'bun.lock', '.gitignore']);
const ROOT_CONFIG = ['opencode.json', 'opencode.jsonc'];
/**
 * Instruction files opencode 1.18.33 puts into every agent's system prompt (its Instruction.systemPaths):
 * the first of these found from the project folder up to its git root. The relay ships none.
 */
export const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md', 'CONTEXT.md'];
/** A `.opencode` folder above the project: opencode loads it as configuration too. */
const FOLDER = 'folder';

export interface RuntimeManifest {
  about: string;
  /** Project-relative path (forward slashes) → sha256 of its content, line endings as LF. */
  files: Record<string, string>;
  /** The change policy the project ships (policy.yaml and the records it names): path → sha256, as `files`. */
  policy?: Record<string, string>;
  /** What a runtime on exactly these files reports (GET /agent, GET /config), for the configuration check. */
  runtime?: RuntimeConfigShape;
}

export interface Difference {
  file: string;
  why: string;
}

const manifestSchema = z.object({ about: z.string(), files: z.record(z.string(), z.string()), policy: z.record(z.string(), z.string()).optional(), runtime: runtimeConfigShapeSchema.optional() });
export const SHIPPED_MANIFEST: RuntimeManifest = manifestSchema.parse(shipped);
export const MANIFEST_COMMAND = 'npm run runtime:manifest';

/** LF line endings first: a Windows checkout (autocrlf) is the same file to opencode. Bytes as latin1: lossless. */
function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file).toString('latin1').replace(/\r\n/g, '\n'), 'latin1').digest('hex');
}

/** A symbolic link is recorded as such: its target may change under a name that did not. */
const LINK = 'symbolic link';

/** Hashes already taken, by absolute path, for a check that runs before every run (createRuntimeFilesCheck). */
export interface HashCache {
  entries: Map<string, { stamp: string; hash: string }>;
  /** Milliseconds since the epoch: when a file counts as changed too recently to keep its hash. */
  now: () => number;
}
/** A change within this long of the hash is not trusted to show in the timestamps (below). */
const RACY_MS = 2_000n;

/**
 * A file's sha256, read again only when the file may have changed: its inode, size, mtime or ctime
 * differ from when it was hashed. A kept modification time hides nothing: `touch -r` and utimes set
 * ctime to now, and nobody can set it back. A file changed less than two seconds before it was
 * hashed is hashed again next time ("racy git"): the kernel's timestamps tick coarsely, and a
 * second write of the same size in the same tick would leave all four as they were.
 */
export function hashOf(abs: string, st: BigIntStats, cache: HashCache | undefined): string {
  const stamp = `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  const kept = cache?.entries.get(abs);
  if (kept?.stamp === stamp) return kept.hash;
  const hash = sha256(abs);
  if (cache && BigInt(Math.floor(cache.now())) * 1_000_000n - st.ctimeNs > RACY_MS * 1_000_000n) cache.entries.set(abs, { stamp, hash });
  else cache?.entries.delete(abs);
  return hash;
}

function walk(root: string, rel: string, out: Record<string, string>, cache: HashCache | undefined) {
  for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (child.split('/').length === 2 && RUNTIME_WRITES.has(entry.name)) continue;
    const abs = path.join(root, child);
    const st = lstatSync(abs, { bigint: true });
    if (st.isSymbolicLink()) out[child] = LINK;
    else if (st.isDirectory()) walk(root, child, out, cache);
    else out[child] = hashOf(abs, st, cache);
  }
}

/**
 * The folders above the project that opencode also searches (config and instruction files): up to
 * the git root the project is in, or to the filesystem root outside git (opencode's worktree then).
 */
function foldersAbove(projectDir: string): string[] {
  const out: string[] = [];
  let dir = path.resolve(projectDir);
  while (!existsSync(path.join(dir, '.git'))) {
    const parent = path.dirname(dir);
    if (parent === dir) break;
    out.push(parent);
    dir = parent;
  }
  return out;
}

/**
 * Folders inside the project whose files the incident agents may read (their `read` permission):
 * opencode also adds an instruction file it finds beside a file an agent reads, so one placed in
 * any of these folders would reach the agents' prompts. `deep` folders are looked at to the bottom.
 */
const READ_FOLDERS: { dir: string; deep: boolean }[] = [
  { dir: 'intelligence-artifacts', deep: true },
  { dir: 'logs/troubleshooting', deep: false },
];

function foldersAgentsRead(projectDir: string): string[] {
  const out: string[] = [];
  const visit = (abs: string, deep: boolean) => {
    out.push(abs);
    if (!deep) return;
    for (const e of readdirSync(abs, { withFileTypes: true })) if (e.isDirectory()) visit(path.join(abs, e.name), deep);
  };
  for (const { dir, deep } of READ_FOLDERS) {
    const abs = path.join(projectDir, dir);
    if (existsSync(abs)) visit(abs, deep);
  }
  return out;
}

/** The runtime files of a project as they are now: project-relative path → sha256. */
export function runtimeFiles(projectDir: string, cache?: HashCache): Record<string, string> {
  const out: Record<string, string> = {};
  for (const dir of [projectDir, ...foldersAbove(projectDir)]) {
    for (const name of [...ROOT_CONFIG, ...INSTRUCTION_FILES]) {
      const abs = path.join(dir, name);
      const st = lstatSync(abs, { bigint: true, throwIfNoEntry: false });
      if (st) out[path.relative(projectDir, abs).split(path.sep).join('/')] = st.isSymbolicLink() ? LINK : hashOf(abs, st, cache);
    }
    if (dir !== projectDir && existsSync(path.join(dir, '.opencode'))) out[`${path.relative(projectDir, path.join(dir, '.opencode')).split(path.sep).join('/')}/`] = FOLDER;
  }
  for (const dir of foldersAgentsRead(projectDir)) {
    for (const name of INSTRUCTION_FILES) {
      const abs = path.join(dir, name);
      const st = lstatSync(abs, { bigint: true, throwIfNoEntry: false });
      if (st) out[path.relative(projectDir, abs).split(path.sep).join('/')] = st.isSymbolicLink() ? LINK : hashOf(abs, st, cache);
    }
  }
  if (existsSync(path.join(projectDir, '.opencode'))) walk(projectDir, '.opencode', out, cache);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** A manifest of the project as it is (for `npm run runtime:manifest`); links and files outside the project are refused. */
export function buildManifest(projectDir: string, runtime?: RuntimeConfigShape): RuntimeManifest {
  const files = runtimeFiles(projectDir);
  const links = Object.keys(files).filter((f) => files[f] === LINK);
  if (links.length) throw new Error(`the relay ships no symbolic links as runtime files: ${links.join(', ')}`);
  const outside = Object.keys(files).filter((f) => f.startsWith('../'));
  if (outside.length) throw new Error(`the relay ships nothing above its folder, and opencode would load these: ${outside.join(', ')}`);
  return {
    about: `What the relay ships to its agent runtime, and its change policy; regenerate with ${MANIFEST_COMMAND} after changing an agent file, opencode.json or the shipped policy.yaml.`,
    files,
    ...(runtime ? { runtime } : {}),
  };
}

/** Why a file the relay does not ship matters, from where opencode finds it. */
function unshipped(file: string): string {
  if (file.startsWith('../')) return 'above the project folder, and opencode loads it too (it looks up to the git root)';
  if (INSTRUCTION_FILES.includes(file)) return 'an instruction file opencode adds to every agent\'s system prompt, and the relay ships none';
  if (INSTRUCTION_FILES.includes(path.posix.basename(file))) return 'an instruction file opencode adds to an agent\'s prompt when it reads a file beside it, and the relay ships none';
  if (/^\.opencode\/plugins?\//.test(file)) return 'a runtime plugin, and the relay ships none: opencode would import it into its own process';
  if (/^\.opencode\/tools?\//.test(file)) return 'a custom tool the relay does not ship: opencode would import it into its own process';
  if (/^\.opencode\/agents?\//.test(file) || /^\.opencode\/modes?\//.test(file)) return 'an agent the relay does not ship';
  return 'not shipped by the relay, and opencode may load it as configuration';
}

/** Every way the project's runtime files differ from the manifest, by file name. */
export function compareRuntimeFiles(projectDir: string, manifest: RuntimeManifest = SHIPPED_MANIFEST, cache?: HashCache): Difference[] {
  const found = runtimeFiles(projectDir, cache);
  const out: Difference[] = [];
  for (const [file, hash] of Object.entries(manifest.files)) {
    const now = found[file];
    if (now === undefined) out.push({ file, why: 'missing (the relay ships it)' });
    else if (now === LINK) out.push({ file, why: 'replaced by a symbolic link' });
    else if (now !== hash) out.push({ file, why: `changed (sha256 ${now.slice(0, 12)}…, the relay ships ${hash.slice(0, 12)}…)` });
  }
  for (const file of Object.keys(found)) if (!(file in manifest.files)) out.push({ file, why: unshipped(file) });
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

/** One line for a log, a timeline or /health: the first file, and how many more. */
export function describeDifferences(differences: Difference[]): string {
  const [first, ...rest] = differences;
  if (!first) return '';
  const more = rest.length ? ` (and ${rest.length} more: ${rest.map((d) => d.file).join(', ')})` : '';
  return `${first.file} is ${first.why}${more}; restore it, or after an intended change run ${MANIFEST_COMMAND}`;
}

/** The embedded runtime was not started: `npm run relay` prints this one line and exits 78. */
export class RuntimeFilesError extends ConfigError {
  constructor(readonly differences: Difference[]) {
    const line = `the agent runtime was not started: ${describeDifferences(differences)}`;
    super([line]);
    this.message = line;
  }
}

/** Before starting the runtime: throws RuntimeFilesError naming the file when anything differs. */
export function assertRuntimeFiles(projectDir: string, manifest: RuntimeManifest = SHIPPED_MANIFEST): void {
  const differences = compareRuntimeFiles(projectDir, manifest);
  if (differences.length) throw new RuntimeFilesError(differences);
}

/**
 * The check the dispatcher runs before each run and /health shows: null when the files are as
 * shipped. Every file is looked at each time; one is read and hashed again only when its
 * timestamps say it may have changed (hashOf): hashing the dozen files was the largest part of
 * the relay's own work on a new alert's way to the runtime (0.4 ms of 1.8).
 */
export function createRuntimeFilesCheck(projectDir: string, manifest: RuntimeManifest = SHIPPED_MANIFEST, opts: { now?: () => number } = {}) {
  const cache: HashCache = { entries: new Map(), now: opts.now ?? Date.now };
  const differences = (): string | null => {
    try {
      const found = compareRuntimeFiles(projectDir, manifest, cache);
      return found.length ? describeDifferences(found) : null;
    } catch (error) {
      // Unreadable is not "as shipped".
      return `the runtime files could not be read (${errorText(error)})`;
    }
  };
  /** Set when the runtime (re)started while the files differed: it runs on what it loaded then. */
  let loadedWrong: string | null = null;
  const problem = (): string | null => differences() ?? loadedWrong;
  return {
    problem,
    /**
     * Each time the runtime becomes ready: the supervisor restarts it after a crash, and opencode
     * reads its files at start, so a restart on changed files holds runs even once they are restored.
     */
    runtimeStarted() {
      const now = differences();
      loadedWrong = now && `the agent runtime restarted while ${now.replace(/; restore it.*$/, '')}; restore it and restart the relay`;
    },
    /** For /health: the standing warning while runs are held. */
    warnings: (): string[] => {
      const p = problem();
      return p ? [`Runs are held: ${p}.`] : [];
    },
  };
}

export type RuntimeFilesCheck = ReturnType<typeof createRuntimeFilesCheck>;
