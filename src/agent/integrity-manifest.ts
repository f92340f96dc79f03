/**
 * `npm run runtime:manifest`: writes `src/agent/runtime-manifest.json` from the project's agent
 * files and `opencode.json` as they are now. Run it after an intended change to one of them; the
 * relay refuses runs while they differ from the committed manifest, and a unit test fails.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildManifest } from './integrity';

const projectDir = path.resolve(import.meta.dirname, '../..');
const target = path.join(import.meta.dirname, 'runtime-manifest.json');
const manifest = buildManifest(projectDir);
writeFileSync(target, `${JSON.stringify(manifest, null, 2)}\n`);
process.stdout.write(`${path.relative(projectDir, target)}: ${Object.keys(manifest.files).length} files\n${Object.keys(manifest.files).map((f) => `  ${f}`).join('\n')}\n`);
