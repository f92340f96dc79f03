import { parseArgs } from 'node:util';
import { projectRoot, resolveVaultDir } from './vault-dir';
import { createWikiQuery, KbQueryError } from './wiki-query';
import { KbVaultError } from './vault';

// `npx tsx src/runbooks/kb/query-cli.ts "<query>" [--depth quick|standard|deep]`: what the agents would read.
const { values, positionals } = parseArgs({ options: { depth: { type: 'string', short: 'd' } }, allowPositionals: true });
try {
  const answer = await createWikiQuery({ vaultDir: resolveVaultDir(process.env, projectRoot) }).query({
    query: positionals.join(' '),
    ...(values.depth !== undefined ? { depth: values.depth } : {}),
  });
  process.stdout.write(`${answer.text}\n`);
} catch (error) {
  if (!(error instanceof KbQueryError || error instanceof KbVaultError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 2;
}
