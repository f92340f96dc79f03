import { describe, expect, it } from 'vitest';
import { OTLP_EXPORT_ENV, otlpHeaderValues, tracingWanted } from '../../src/adapters/telemetry/settings';
import { redactedQuery, safeRequestPath } from '../../src/adapters/telemetry/http-attributes';
import { RUNTIME_OMIT_ENV } from '../../src/relay/start-headless';

describe('tracing settings (OTEL_*)', () => {
  it.each([
    [{}, false],
    [{ OTEL_SERVICE_NAME: 'relay' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_TRACES_EXPORTER: 'console' }, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
  ])('%j → traces exported: %s', (env, wanted) => {
    expect(tracingWanted(env)).toBe(wanted);
  });

  it('takes the OTLP headers\' values (a collector\'s key) as secrets, in both their encoded and decoded forms', () => {
    expect(otlpHeaderValues({ OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abcd1234efgh,Authorization=Bearer%20tok-987654321' })).toEqual(['abcd1234efgh', 'abcd1234efgh', 'Bearer%20tok-987654321', 'Bearer tok-987654321']);
  });

  it('records a URL\'s query names, never its values', () => {
    expect(redactedQuery('?token=s3cret&x=1')).toBe('?token=REDACTED&x=REDACTED');
    expect(redactedQuery('')).toBe('');
    expect(safeRequestPath('/ui/sign-in?token=abc')).toBe('/ui/sign-in?token=REDACTED');
    expect(safeRequestPath('/fault-alert')).toBe('/fault-alert');
  });

  it('keeps the OTLP endpoint and its key from the embedded runtime, which would export spans of its own', () => {
    expect(RUNTIME_OMIT_ENV).toEqual(expect.arrayContaining(['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS']));
    expect(OTLP_EXPORT_ENV).toHaveLength(8);
  });
});
