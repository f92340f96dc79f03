import { readFileSync } from 'node:fs';
import type { z } from 'zod';

/**
 * A small JSON file the relay keeps whole (quarantines, held requests), read and checked against its
 * schema; undefined when there is none yet. A file that does not pass says where, and what to do
 * (`fix`), rather than being dropped: what it holds must not be lost silently.
 */
export function readJsonFile<S extends z.ZodType>(file: string, schema: S, fix: string): z.infer<S> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = schema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${file} cannot be read (${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}): ${fix}`);
  return parsed.data;
}
