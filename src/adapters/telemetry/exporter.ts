import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { proxyingAgent } from '../net/node-agent';
import { proxySettingsFromEnv } from '../net/proxy';

type Env = Readonly<Record<string, string | undefined>>;
type SpanExporter = NodeSDKConfiguration['traceExporter'];

/** The OTLP protocol for traces, as the SDK reads it (its default: http/protobuf). */
export function otlpTracesProtocol(env: Env): string {
  return (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim() || 'http/protobuf';
}

/** A PEM file the OTEL_EXPORTER_OTLP_*CERTIFICATE / *CLIENT_KEY variables name, as the SDK would read it. */
function fileOf(env: Env, suffix: string): Buffer | undefined {
  const path = env[`OTEL_EXPORTER_OTLP_TRACES_${suffix}`] ?? env[`OTEL_EXPORTER_OTLP_${suffix}`];
  if (!path) return undefined;
  try {
    return readFileSync(resolve(path));
  } catch {
    return undefined;
  }
}

/**
 * The OTLP/HTTP trace exporter (JSON or protobuf, as OTEL_EXPORTER_OTLP_PROTOCOL says), whose
 * connections follow HTTPS_PROXY / HTTP_PROXY / NO_PROXY like every other outbound call of the
 * relay. Endpoint, headers, timeout and compression are still the SDK's own reading of OTEL_*.
 * Undefined when the SDK's own choice stands: gRPC (grpc-js reads the same proxy variables
 * itself) or an OTEL_TRACES_EXPORTER other than `otlp` alone.
 */
export async function proxiedTraceExporter(env: Env): Promise<SpanExporter | undefined> {
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((e) => e.trim().toLowerCase()).filter(Boolean);
  if (exporters.length > 0 && !(exporters.length === 1 && exporters[0] === 'otlp')) return undefined;
  const protocol = otlpTracesProtocol(env);
  if (protocol !== 'http/json' && protocol !== 'http/protobuf') return undefined;
  const settings = proxySettingsFromEnv({ ...env });
  const tls = { ca: fileOf(env, 'CERTIFICATE'), cert: fileOf(env, 'CLIENT_CERTIFICATE'), key: fileOf(env, 'CLIENT_KEY') };
  const httpAgentOptions = (scheme: string) => proxyingAgent(scheme, settings, scheme === 'https:' ? Object.fromEntries(Object.entries(tls).filter(([, v]) => v)) : {});
  const { OTLPTraceExporter } = protocol === 'http/json' ? await import('@opentelemetry/exporter-trace-otlp-http') : await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ httpAgentOptions });
}
