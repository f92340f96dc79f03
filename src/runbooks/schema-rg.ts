import { z } from 'zod';
import { alertDefIdSchema, semverSchema } from './schema-fs';

/** Front matter of RG.md; the body is Markdown for humans and is not interpreted. */
export const remediationGuideFrontMatterSchema = z.strictObject({
  kind: z.literal('remediation_guide'),
  alert_def_id: alertDefIdSchema,
  title: z.string().min(1),
  /** The FS and RAW versions this guide explains; the validator holds them to the files beside it. */
  fs_version: semverSchema,
  raw_version: semverSchema,
  owner: z.string().min(1),
  last_reviewed: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date like 2025-03-01'),
});
export type RemediationGuideFrontMatter = z.infer<typeof remediationGuideFrontMatterSchema>;

export interface RemediationGuide {
  frontMatter: RemediationGuideFrontMatter;
  body: string;
}
