import { cp, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { FILE_NAMES } from './group-files';
import { alertDefIdSchema } from './schema-fs';

/**
 * `npm run artifacts:new -- AD000004 --from AD000002`: a new artifact group as a copy of a
 * working one, so an author starts from something that validates and edits towards the new fault
 * instead of writing FS/RAW/RG from a blank page.
 */

/** A one-line reason the scaffold refused; the CLI prints it and exits 2. */
export class ScaffoldError extends Error {
  override readonly name = 'ScaffoldError';
}

export const scaffoldOptionsSchema = z.object({
  id: alertDefIdSchema,
  from: alertDefIdSchema,
  artifactsDir: z.string().min(1),
  /** The KB vault; the new alert definition gets its page under `alerts/`. */
  kbDir: z.string().min(1),
  /** YYYY-MM-DD for the RG's last_reviewed and the KB page's updated (default: today). */
  today: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(),
});
export type ScaffoldOptions = z.input<typeof scaffoldOptionsSchema>;

/** A new group starts at 0.1.0 everywhere: it has been reviewed by nobody yet. */
export const DRAFT_VERSION = '0.1.0';

export interface ScaffoldResult {
  dir: string;
  files: string[];
  /** The KB page written, or undefined when one already existed (never overwritten). */
  kbPage?: string;
}

const exists = (path: string) => stat(path).then(() => true, () => false);
const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * Rewrites one copied file: the source id becomes the new id everywhere (ids, headings, comments),
 * versions restart at DRAFT_VERSION, titles say they are drafts. Line-based so the comments that
 * explain the runbook survive.
 */
export function rewriteArtifactText(text: string, from: string, to: string, today: string): string {
  let out = text.replace(new RegExp(`\\b${from}\\b`, 'g'), to).replace(new RegExp(`\\b${from.toLowerCase()}\\b`, 'g'), to.toLowerCase());
  out = out.replace(/^(version|fs_version|raw_version): *\S+ *$/gm, `$1: ${DRAFT_VERSION}`);
  out = out.replace(/^last_reviewed: *\S+ *$/gm, `last_reviewed: ${today}`);
  out = out.replace(/^title: *(.+)$/gm, (_line, title: string) => {
    const plain = title.replace(/^(['"])(.*)\1$/, '$2');
    return `title: ${quote(`DRAFT (from ${from}): ${plain}`)}`;
  });
  return out;
}

/**
 * Drops the FS's top-level `sources:` block (and the comment right above it): a copied
 * Alertmanager `match` would make every such alert match two definitions, and the relay refuses
 * to guess between runbooks.
 */
export function withoutSenderMappings(fsText: string): string {
  const lines = fsText.split('\n');
  const start = lines.findIndex((l) => /^sources:\s*$/.test(l));
  if (start < 0) return fsText;
  let end = start + 1;
  while (end < lines.length && (/^\s/.test(lines[end]!) || lines[end]!.trim() === '')) end++;
  let from = start;
  while (from > 0 && lines[from - 1]!.startsWith('#')) from--;
  return [...lines.slice(0, from), ...lines.slice(end)].join('\n').replace(/\n*$/, '\n');
}

function kbPage(id: string, from: string, title: string, today: string): string {
  return `---
title: ${id} operational notes (${title})
tags: [alert, ${id.toLowerCase()}]
updated: ${today}
links: [approval-policy, incident-history]
---
# ${id}: what the KB adds to the runbook

Scaffolded from [[${from.toLowerCase()}]]. The runbook (FS, RAW, RG in \`intelligence-artifacts/${id}/\`)
says how to recognise and repair the fault; this page says when the repair must not happen and who
decides. Replace this text.

## Before proposing the repair

- Planned work that produces this fault (maintenance windows, known issues): escalate instead.
- Which approver class applies ([[approval-policy]]).

## Past incidents

See [[incident-history]].
`;
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out.sort();
}

export async function scaffoldGroup(options: ScaffoldOptions): Promise<ScaffoldResult> {
  const parsed = scaffoldOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const value = (options as Record<string, unknown>)[String(issue.path[0])];
    throw new ScaffoldError(`${String(issue.path[0])} "${String(value)}" ${issue.message}`);
  }
  const { id, from, artifactsDir, kbDir } = parsed.data;
  const today = parsed.data.today ?? new Date().toISOString().slice(0, 10);
  if (id === from) throw new ScaffoldError(`${id} cannot be scaffolded from itself`);
  const source = join(artifactsDir, from);
  const target = join(artifactsDir, id);
  if (await exists(target)) throw new ScaffoldError(`${id} already exists (${target}); pick an unused id or edit that group`);
  if (!(await exists(join(source, FILE_NAMES.fs)))) throw new ScaffoldError(`no artifact group ${from} to copy (${join(source, FILE_NAMES.fs)} is missing)`);

  await cp(source, target, { recursive: true, errorOnExist: true, force: false });
  const files = await filesUnder(target);
  let title = id;
  for (const file of files.filter((f) => /\.(ya?ml|md)$/.test(f))) {
    let text = rewriteArtifactText(await readFile(file, 'utf8'), from, id, today);
    if (file === join(target, FILE_NAMES.fs)) {
      text = withoutSenderMappings(text);
      title = /^title: '(?:DRAFT \(from [^)]*\): )?(.*)'$/m.exec(text)?.[1]?.replace(/''/g, "'") ?? id;
    }
    await writeFile(file, text);
  }

  const page = join(kbDir, 'alerts', `${id.toLowerCase()}.md`);
  let kbWritten: string | undefined;
  if (!(await exists(page))) {
    await mkdir(join(kbDir, 'alerts'), { recursive: true });
    await writeFile(page, kbPage(id, from, title, today));
    kbWritten = page;
  }
  return { dir: target, files, ...(kbWritten ? { kbPage: kbWritten } : {}) };
}
