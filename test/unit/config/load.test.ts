import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load';
import { describeConfig } from '../../../src/config/redact';

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
