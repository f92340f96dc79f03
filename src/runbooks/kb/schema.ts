import { z } from 'zod';

export const KB_DEPTHS = ['quick', 'standard', 'deep'] as const;

/** Front matter every vault page carries (see kb/README.md). */
export const frontMatterSchema = z
  .object({
    title: z.string().trim().min(1),
    tags: z.array(z.string().trim().min(1)).default([]),
    // `yaml` keeps 2026-11-02 a string (YAML 1.2 core schema); a Date is accepted for hand-written 1.1 files.
    updated: z.union([z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD'), z.date().transform((d) => d.toISOString().slice(0, 10))]),
    links: z.array(z.string().trim().min(1)).default([]),
  })
  .loose();
export type FrontMatter = z.infer<typeof frontMatterSchema>;

export const MAX_QUERY_CHARS = 500;

/** Arguments of `wiki_query`, the shape the MCP tool and the CLI accept. */
export const wikiQueryInputSchema = z.object({
  query: z
    .string()
    .trim()
    .min(1, 'query is empty: say what to look for, e.g. "R1 BGP neighbor 10.0.0.2 shutdown maintenance window"')
    .max(MAX_QUERY_CHARS, `query is longer than ${MAX_QUERY_CHARS} characters`),
  depth: z.enum(KB_DEPTHS, { error: 'depth must be one of quick, standard, deep' }).default('standard'),
});
export type WikiQueryInput = z.infer<typeof wikiQueryInputSchema>;
export type KbDepth = (typeof KB_DEPTHS)[number];
