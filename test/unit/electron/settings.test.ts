import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSecretStore } from '../../../electron/secrets';
import { createSettings } from '../../../electron/settings';
import { silent } from '../../helpers/relay';
import { confStore, fakeSafeStorage } from './fakes';

function setUp(opts: { keychain?: Parameters<typeof fakeSafeStorage>[0]; baseEnv?: Record<string, string> } = {}) {
  const secretFile = confStore('secrets');
  const settingsFile = confStore('settings', secretFile.dir);
  const secrets = createSecretStore({ backend: secretFile.conf, safeStorage: fakeSafeStorage(opts.keychain), platform: 'linux', logger: silent });
  const settings = createSettings({ backend: settingsFile.conf, secrets, baseEnv: { RELAY_DATA_DIR: '/data', ...opts.baseEnv } });
  const snapshot = () => ({ settings: settingsFile.conf.store, secrets: secretFile.conf.store });
  return { settings, secrets, secretFile, settingsFile, snapshot };
}

const field = (s: ReturnType<typeof setUp>['settings'], name: string) => s.fields().find((f) => f.name === name);

describe('settings', () => {
  it('saves valid changes, which the relay then starts with; an empty value returns to the default', () => {
    const { settings } = setUp();
    expect(settings.save({ INGEST_PORT: '9090', REMEDIATION_MODE: 'hybrid' })).toEqual({ ok: true, restartNeeded: true });
    expect(settings.env()).toMatchObject({ INGEST_PORT: '9090', REMEDIATION_MODE: 'hybrid', RELAY_DATA_DIR: '/data' });
    expect(field(settings, 'INGEST_PORT')).toMatchObject({ value: '9090', inForce: '9090', source: 'settings file', secret: false, description: expect.stringContaining('port') });
    expect(settings.save({ INGEST_PORT: '' })).toEqual({ ok: true, restartNeeded: true });
    expect(field(settings, 'INGEST_PORT')).toMatchObject({ value: '8080', inForce: '8080', source: 'default' });
  });

  it('shows each value in force as a person reads it, and where it comes from', () => {
    const secretFile = confStore('secrets');
    const settingsFile = confStore('settings', secretFile.dir);
    const secrets = createSecretStore({ backend: secretFile.conf, safeStorage: fakeSafeStorage(), platform: 'linux', logger: silent });
    const desktopDefaults = { RELAY_DATA_DIR: '/home/op/.config/fault-relay/data', INGEST_PORT: '0' };
    const settings = createSettings({
      backend: settingsFile.conf,
      secrets,
      baseEnv: { ...desktopDefaults, DELIVERY_RETRY_MAX_MS: '90000' },
      desktopDefaults,
      servedPort: () => 43121,
    });
    settings.save({ APPROVAL_TTL: '45m' });
    expect(field(settings, 'APPROVAL_TTL')).toMatchObject({ value: '45m', inForce: '45m', source: 'settings file' });
    expect(field(settings, 'DELIVERY_RETRY_MAX_MS')).toMatchObject({ inForce: '90s', source: 'environment' });
    expect(field(settings, 'RELAY_DATA_DIR')).toMatchObject({ inForce: '/home/op/.config/fault-relay/data', source: 'desktop default' });
    expect(field(settings, 'MAX_BODY_BYTES')).toMatchObject({ inForce: '256 KiB', source: 'default' });
    expect(field(settings, 'INGEST_PORT')).toMatchObject({ inForce: '43121', note: 'configured 0 (any free port); served on 43121' });
    // The relay makes the tools token itself and hands it over: the operator never copies it.
    expect(field(settings, 'RELAY_TOOLS_TOKEN')).toMatchObject({ secret: true, value: null, inForce: null, source: 'generated', note: expect.stringContaining('runtime-attach.json (0600)') });
  });

  it('answers one line per problem, naming the setting, and changes nothing', () => {
    const { settings, snapshot } = setUp();
    settings.save({ INGEST_PORT: '9090' });
    const before = snapshot();
    const result = settings.save({ INGEST_PORT: '99999', REMEDIATION_MODE: 'yolo', NOT_A_SETTING: 'x' });
    expect(result).toEqual({
      ok: false,
      problems: ['NOT_A_SETTING: not a setting of Fault Relay', 'REMEDIATION_MODE: Invalid option: expected one of "strict"|"hybrid"', 'INGEST_PORT: Too big: expected number to be <=65535'],
    });
    // Settings that only make sense together are checked on the whole configuration.
    expect(settings.save({ AGENT_URL: 'http://10.0.0.1:4096', MSG_ROOM_ID: 'room' })).toEqual({
      ok: false,
      problems: [
        'AGENT_SERVER_PASSWORD: required when AGENT_URL is set (the runtime is password protected)',
        'MSG_BOT_TOKEN: MSG_BOT_TOKEN and MSG_ROOM_ID go together: set both to enable Webex, or neither',
      ],
    });
    expect(snapshot()).toEqual(before);
    expect(settings.env().INGEST_PORT).toBe('9090');
  });
});

describe('secrets', () => {
  it('are stored encrypted in a 0600 file and never returned to the renderer, only whether they are set', () => {
    const { settings, secretFile } = setUp();
    expect(settings.save({ AGENT_URL: 'http://127.0.0.1:4096', AGENT_SERVER_PASSWORD: 'hunter2-secret', WEBHOOK_SECRET: 'splunk-bearer-xyz' })).toEqual({ ok: true, restartNeeded: true });

    const fields = settings.fields();
    expect(JSON.stringify(fields)).not.toMatch(/hunter2-secret|splunk-bearer-xyz/);
    expect(fields.find((f) => f.name === 'AGENT_SERVER_PASSWORD')).toMatchObject({ secret: true, isSet: true, value: null });
    expect(fields.find((f) => f.name === 'MSG_BOT_TOKEN')).toMatchObject({ secret: true, isSet: false, value: null });

    const onDisk = readFileSync(secretFile.file, 'utf8');
    expect(onDisk).not.toMatch(/hunter2-secret|splunk-bearer-xyz/);
    expect(statSync(secretFile.file).mode & 0o777).toBe(0o600);
    // The relay itself gets the plain values.
    expect(settings.env()).toMatchObject({ AGENT_SERVER_PASSWORD: 'hunter2-secret', WEBHOOK_SECRET: 'splunk-bearer-xyz' });
  });

  it('a problem elsewhere in the same save keeps the secret out of the store', () => {
    const { settings, snapshot } = setUp();
    const before = snapshot();
    expect(settings.save({ WEBHOOK_SECRET: 'new-secret', INGEST_PORT: 'eighty' }).ok).toBe(false);
    expect(snapshot()).toEqual(before);
    expect(field(settings, 'WEBHOOK_SECRET')?.isSet).toBe(false);
  });

  it('without a keyring (Linux basic_text) a secret is refused with the way out, and nothing is stored', () => {
    const { settings, snapshot } = setUp({ keychain: { backend: 'basic_text' } });
    const before = snapshot();
    expect(settings.save({ WEBHOOK_SECRET: 'x', INGEST_PORT: '9000' })).toEqual({
      ok: false,
      problems: ['WEBHOOK_SECRET: no keyring (GNOME Keyring or KWallet) is running: set secrets as environment variables instead'],
    });
    expect(snapshot()).toEqual(before);
  });

  it('an empty value removes a stored secret', () => {
    const { settings } = setUp();
    settings.save({ WEBHOOK_SECRET: 'abc' });
    expect(settings.save({ WEBHOOK_SECRET: '' })).toEqual({ ok: true, restartNeeded: true });
    expect(field(settings, 'WEBHOOK_SECRET')?.isSet).toBe(false);
    expect(settings.env().WEBHOOK_SECRET).toBeUndefined();
  });
});
