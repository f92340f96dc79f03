import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../../src/config/load';
import { repoRoot } from '../../helpers/opencode';

type Service = { environment?: Record<string, string>; networks?: { default?: { ipv4_address?: string } } };
const compose = parse(readFileSync(join(repoRoot, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  networks: { default: { ipam: { config: Array<{ subnet: string }> } } };
};
const nginx = readFileSync(join(repoRoot, 'deploy/nginx.conf'), 'utf8');

/** Whether an IPv4 address is inside a /n subnet. */
function inSubnet(address: string, cidr: string): boolean {
  const n = (a: string) => a.split('.').reduce((v, o) => v * 256 + Number(o), 0);
  const [base = '', bits = '32'] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  return Math.floor(n(address) / size) === Math.floor(n(base) / size);
}

// Checked here because no container engine runs in the test suite (docs/team-relay.md: the images are checked by hand).
describe('compose.yaml: the relays behind nginx', () => {
  it('trust exactly nginx\'s fixed address as their proxy, in a form the relay accepts', () => {
    const front = compose.services.front!.networks?.default?.ipv4_address;
    expect(front).toBeDefined();
    expect(inSubnet(front!, compose.networks.default.ipam.config[0]!.subnet)).toBe(true);
    for (const name of ['relay-a', 'relay-b']) {
      const env = compose.services[name]!.environment!;
      expect(env.RELAY_TRUSTED_PROXY).toBe(front);
      expect(loadConfig({ AGENT_URL: 'http://127.0.0.1:1', AGENT_SERVER_PASSWORD: 'pw', RELAY_TRUSTED_PROXY: env.RELAY_TRUSTED_PROXY! }).RELAY_TRUSTED_PROXY).toEqual([front]);
    }
  });

  it('give both relays the team decision key from the operator\'s environment, and the database none', () => {
    for (const name of ['relay-a', 'relay-b']) expect(compose.services[name]!.environment!.TEAM_DECISION_KEY).toMatch(/^\$\{TEAM_DECISION_KEY:\?set TEAM_DECISION_KEY/);
    expect(JSON.stringify(compose.services.db)).not.toContain('TEAM_DECISION_KEY');
  });

  it('nginx sets X-Forwarded-For to the client it saw (a client\'s own header is not passed on) and X-Forwarded-Proto', () => {
    expect(nginx).toMatch(/^\s*proxy_set_header X-Forwarded-For \$remote_addr;$/m);
    expect(nginx).toMatch(/^\s*proxy_set_header X-Forwarded-Proto \$scheme;$/m);
    expect(nginx).not.toContain('$proxy_add_x_forwarded_for');
  });
});
