/**
 * npm run operators -- token --name "Ana Ruiz" --email ana@example.net [--role approver|viewer]
 * Prints a new personal token (once: give it to that person) and the line for OPERATORS_FILE,
 * which holds only the token's SHA-256.
 */
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { newToken, OPERATOR_ROLES } from '../src/core/operators/operators';
import { cli } from './cli';

const HELP = 'usage: npm run operators -- token --name "Ana Ruiz" --email ana@example.net [--role approver|viewer]';
const { fail, parse } = cli('operators', HELP);
const { values, positionals } = parse(() => {
  const p = parseArgs({ allowPositionals: true, options: { name: { type: 'string' }, email: { type: 'string' }, role: { type: 'string', default: 'approver' }, help: { type: 'boolean', short: 'h' } } });
  return { values: p.values, positionals: p.positionals, help: p.values.help };
});
if (positionals[0] !== 'token') fail(HELP);
const name = values.name ?? fail('--name is required');
const email = values.email ?? fail('--email is required');
if (!/^[^@\s]+@[^@\s]+$/.test(email)) fail(`--email ${email} is not an e-mail address`);
const role = values.role ?? 'approver';
if (!(OPERATOR_ROLES as readonly string[]).includes(role)) fail(`--role must be ${OPERATOR_ROLES.join(' or ')}`);
const { token, sha256 } = newToken();
process.stdout.write(`Personal token for ${email} (shown once; give it to them, it is not stored anywhere):\n\n  ${token}\n\nAdd to OPERATORS_FILE under operators:\n\n`);
process.stdout.write(stringify([{ name, email, role, token_sha256: sha256 }]).replace(/^/gm, '  '));
