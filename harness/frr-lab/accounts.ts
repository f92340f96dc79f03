import { chmodSync, chownSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './host';

export const LAB_LOGIN_USER = 'netops';

export interface LabAccountFiles {
  passwd: string;
  group: string;
  shadow: string;
}

const idOf = (line: string) => Number(line.split(':')[2]);

/**
 * The router login exists only inside the sshd's own mount namespace: the lab writes copies of
 * /etc/passwd, /etc/group and /etc/shadow with one more user (in FRR's groups) and bind-mounts them there. The host's account files are never
 * changed, so a killed lab leaves no user behind.
 */
export async function writeLabAccounts(dir: string, password: string): Promise<LabAccountFiles> {
  const passwd = readFileSync('/etc/passwd', 'utf8').trimEnd().split('\n');
  const group = readFileSync('/etc/group', 'utf8').trimEnd().split('\n');
  const shadow = readFileSync('/etc/shadow', 'utf8').trimEnd().split('\n');
  const used = new Set([...passwd.map(idOf), ...group.map(idOf)]);
  let id = 64100;
  while (used.has(id)) id++;
  const hash = (await run('/usr/bin/openssl', ['passwd', '-6', '-stdin'], { input: password })).trim();

  const files = { passwd: join(dir, 'passwd'), group: join(dir, 'group'), shadow: join(dir, 'shadow') };
  writeFileSync(files.passwd, [...passwd, `${LAB_LOGIN_USER}:x:${id}:${id}:Fault Relay lab login:/:/bin/sh`, ''].join('\n'), { mode: 0o644 });
  // frrvty: vtysh may reach the daemons' sockets; frr: it may read its vtysh.conf under /etc/frr.
  const withVty = group.map((line) => (/^frr(vty)?:/.test(line) ? `${line}${line.endsWith(':') ? '' : ','}${LAB_LOGIN_USER}` : line));
  writeFileSync(files.group, [...withVty, `${LAB_LOGIN_USER}:x:${id}:`, ''].join('\n'), { mode: 0o644 });
  writeFileSync(files.shadow, [...shadow, `${LAB_LOGIN_USER}:${hash}:20000:0:99999:7:::`, ''].join('\n'), { mode: 0o640 });
  // pam_unix's helper reads shadow through the shadow group, as it does the real one.
  const shadowGid = group.find((l) => l.startsWith('shadow:'));
  if (shadowGid) chownSync(files.shadow, 0, idOf(shadowGid));
  chmodSync(files.shadow, 0o640);
  return files;
}
