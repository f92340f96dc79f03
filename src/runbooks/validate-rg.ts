import { FILE_NAMES } from './group-files';
import type { FaultSignature } from './schema-fs';
import type { RepairActionWorkflow } from './schema-raw';
import { remediationGuideFrontMatterSchema, type RemediationGuide } from './schema-rg';
import { parseWith, type IssueSink } from './validate-issues';
import { parseYamlSource } from './yaml-source';

/** Splits `---\nfront matter\n---\nbody`; the front matter starts on line 2 of the file. */
function splitFrontMatter(text: string): { yaml: string; body: string } | undefined {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  return m ? { yaml: m[1]!, body: m[2]! } : undefined;
}

/**
 * Parses RG.md and checks it explains the FS and RAW of its folder. The guide is returned when
 * its front matter parses, even if a cross-check failed (the caller decides on the issues).
 */
export function checkRg(
  rgText: string,
  file: string,
  id: string,
  fs: FaultSignature | undefined,
  raw: RepairActionWorkflow | undefined,
  sink: IssueSink,
): RemediationGuide | undefined {
  const parts = splitFrontMatter(rgText);
  if (!parts) {
    sink.file(file, 'RG.md must start with YAML front matter between --- lines', 'start the file with ---, the front matter keys (see intelligence-artifacts/README.md), and --- on its own line');
    return undefined;
  }
  const src = parseYamlSource(parts.yaml, file, 1);
  const fm = parseWith(remediationGuideFrontMatterSchema, src, sink);
  if (!fm) return undefined;
  if (fm.alert_def_id !== id) sink.at(src, ['alert_def_id'], `alert_def_id ${fm.alert_def_id} does not match the folder ${id}`, `set alert_def_id: ${id}`);
  if (fs && fm.fs_version !== fs.version) sink.at(src, ['fs_version'], `RG explains FS ${fm.fs_version} but ${FILE_NAMES.fs} is version ${fs.version}`, `review the guide against the FS, then set fs_version: ${fs.version}`);
  if (raw && fm.raw_version !== raw.version) sink.at(src, ['raw_version'], `RG explains RAW ${fm.raw_version} but ${FILE_NAMES.raw} is version ${raw.version}`, `review the guide against the RAW, then set raw_version: ${raw.version}`);
  if (parts.body.trim().length < 200) {
    // Point at the body's first line: the front matter, its two --- lines and the rest before it.
    const bodyLine = rgText.slice(0, rgText.length - parts.body.length).split('\n').length;
    sink.file(file, 'RG.md body is too short to explain the fault and its remediation', 'explain the fault, the workflow\'s decisions, the manual procedure and what to check before approving (200 characters at least)', bodyLine);
  }
  return { frontMatter: fm, body: parts.body };
}
