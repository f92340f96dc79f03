import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load';
import { describeConfig } from '../../../src/config/redact';
import { readDecisionKey } from '../../../src/adapters/team/decision-seal';

describe('configuration', () => {
  it('has safe defaults: loopback, embedded runtime, strict mode', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ RELAY_HOST: '127.0.0.1', INGEST_PORT: 8080, REMEDIATION_MODE: 'strict', MAX_ACTIVE_RUNS: 4, MAX_BODY_BYTES: 262144 });
    expect(c.AGENT_URL).toBeUndefined();
  });

  it('reports every bad variable at once, one line each, naming it', () => {
    let error: unknown;
    try {
      loadConfig({ INGEST_PORT: 'eighty', REMEDIATION_MODE: 'yolo', MAX_ACTIVE_RUNS: '0', AGENT_URL: 'ftp://x', MAX_BODY_BYTES: 'lots' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['AGENT_URL', 'INGEST_PORT', 'MAX_ACTIVE_RUNS', 'MAX_BODY_BYTES', 'REMEDIATION_MODE']);
  });

  it('needs the runtime password with AGENT_URL and both Webex settings together, without echoing secrets', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({ AGENT_URL: 'http://127.0.0.1:4096', MSG_BOT_TOKEN: 'tok-SECRET-123' });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error?.problems.join('\n')).toMatch(/AGENT_SERVER_PASSWORD/);
    expect(error?.problems.join('\n')).toMatch(/MSG_ROOM_ID/);
    expect(error?.message).not.toContain('tok-SECRET-123');
  });

  it('needs the team decision key with DATABASE_URL, long enough, from the setting or a file, never echoed', () => {
    const db = 'postgres://relay:pw@127.0.0.1:5432/fault_relay';
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ DATABASE_URL: db, ...env });
        return '';
      } catch (e) {
        return (e as ConfigError).problems.join('\n');
      }
    };
    expect(problems({})).toMatch(/^TEAM_DECISION_KEY: required with DATABASE_URL/);
    const short = 'only-twenty-chars-ab';
    expect(problems({ TEAM_DECISION_KEY: short })).toMatch(/^TEAM_DECISION_KEY: at least 32 characters/);
    expect(problems({ TEAM_DECISION_KEY: short })).not.toContain(short);
    expect(problems({ TEAM_DECISION_KEY: 'k'.repeat(32) })).toBe('');

    const dir = mkdtempSync(join(tmpdir(), 'fault-relay-key-'));
    try {
      const file = join(dir, 'team-decision-key');
      writeFileSync(file, `${'f'.repeat(40)}\n`, { mode: 0o600 });
      expect(readDecisionKey(loadConfig({ DATABASE_URL: db, TEAM_DECISION_KEY_FILE: file }))).toBe('f'.repeat(40));
      writeFileSync(file, 'short\n');
      expect(() => readDecisionKey(loadConfig({ DATABASE_URL: db, TEAM_DECISION_KEY_FILE: file }))).toThrow(/TEAM_DECISION_KEY_FILE: .* holds fewer than 32 characters/);
      expect(() => readDecisionKey(loadConfig({ DATABASE_URL: db, TEAM_DECISION_KEY_FILE: join(dir, 'missing') }))).toThrow(/TEAM_DECISION_KEY_FILE: .*missing could not be read \(ENOENT\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(describeConfig(loadConfig({ DATABASE_URL: db, TEAM_DECISION_KEY: 'k'.repeat(32) })).TEAM_DECISION_KEY).toBe('set');
  });

  it('parses sizes and durations', () => {
    const c = loadConfig({ MAX_BODY_BYTES: '1m', APPROVAL_TTL: '90s', MSG_APPROVERS: 'A@x.net, b@x.net' });
    expect(c.MAX_BODY_BYTES).toBe(1048576);
    expect(c.APPROVAL_TTL).toBe(90_000);
    expect(c.MSG_APPROVERS).toEqual(['a@x.net', 'b@x.net']);
  });

  it('describes itself with secrets as set/unset only', () => {
    const c = loadConfig({ WEBHOOK_SECRET: 'hunter2hunter2', AGENT_URL: 'http://127.0.0.1:4096', AGENT_SERVER_PASSWORD: 'pw-SECRET' });
    const text = JSON.stringify(describeConfig(c));
    expect(text).not.toContain('hunter2hunter2');
    expect(text).not.toContain('pw-SECRET');
    expect(describeConfig(c).WEBHOOK_SECRET).toBe('set');
  });
});
