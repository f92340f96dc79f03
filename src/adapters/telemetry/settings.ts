/**
 * Whether this process exports traces, from the standard `OTEL_*` variables alone. The SDK's own
 * default (OTLP to localhost:4318 with nothing set) would send spans nobody asked for: here traces
 * go out only when an OTLP endpoint or a traces exporter is named, and never with OTEL_SDK_DISABLED.
 */
export function tracingWanted(env: Readonly<Record<string, string | undefined>>): boolean {
  const set = (name: string) => (env[name] ?? '').trim();
  if (set('OTEL_SDK_DISABLED').toLowerCase() === 'true') return false;
  const exporters = set('OTEL_TRACES_EXPORTER')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.length > 0) return exporters.some((e) => e !== 'none');
  return set('OTEL_EXPORTER_OTLP_ENDPOINT') !== '' || set('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') !== '';
}

/** The values of the OTLP exporter's headers (a collector's API key): kept out of every log line. */
export function otlpHeaderValues(env: Readonly<Record<string, string | undefined>>): string[] {
  return [env.OTEL_EXPORTER_OTLP_HEADERS, env.OTEL_EXPORTER_OTLP_TRACES_HEADERS].flatMap((list) =>
    (list ?? '')
      .split(',')
      .map((pair) => pair.slice(pair.indexOf('=') + 1).trim())
      .filter((value) => value.length >= 8)
      // The variable's values are URL-encoded ("Bearer%20…"); a log line would carry either form.
      .flatMap((value) => [value, safeDecode(value)]),
  );
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * Where and with which key spans are exported. Not for the embedded runtime: opencode exports
 * traces of its own when it sees them, with the model's tool arguments (the lines) in them.
 */
export const OTLP_EXPORT_ENV: readonly string[] = ['', 'TRACES_', 'METRICS_', 'LOGS_'].flatMap((signal) => [`OTEL_EXPORTER_OTLP_${signal}ENDPOINT`, `OTEL_EXPORTER_OTLP_${signal}HEADERS`]);
