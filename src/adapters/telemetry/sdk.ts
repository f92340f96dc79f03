import { context, propagation, trace } from '@opentelemetry/api';
import type { FastifyPluginCallback } from 'fastify';
import { tracingWanted } from './settings';
import { fastifyTracingOptions, undiciTracingOptions } from './http-attributes';
import { proxiedTraceExporter } from './exporter';

/** This process's tracing: started once, before the relay, by each entry point. */
export interface Telemetry {
  /** True when spans are exported (the OTEL_* variables ask for it). */
  readonly active: boolean;
  /** Sends every finished span now (tests, and before a planned exit). */
  flush(): Promise<void>;
  /** Flushes and stops exporting. */
  shutdown(): Promise<void>;
}

const INACTIVE: Telemetry = { active: false, flush: async () => {}, shutdown: async () => {} };

let current: Telemetry = INACTIVE;
let fastifyPlugin: FastifyPluginCallback | undefined;
let starting: Promise<Telemetry> | undefined;

/** Flushes and stops the SDK if it was started (a quitting app). */
export const stopTelemetry = (): Promise<void> => current.shutdown().catch(() => undefined);

/** Whether spans are exported; with tracing off every span helper returns at once. */
export const tracingActive = (): boolean => current.active;

/** @fastify/otel's plugin for the relay's app, or nothing when tracing is off. */
export const fastifyTracing = (): FastifyPluginCallback | undefined => fastifyPlugin;

/**
 * Starts the OpenTelemetry Node SDK when the standard variables ask for traces (see settings.ts);
 * otherwise nothing is loaded and nothing is sent. The SDK reads the OTLP endpoint, protocol,
 * headers, service name and sampler from the environment itself; the OTLP/HTTP exporter's
 * connections follow the corporate proxy settings (exporter.ts). Only traces: no metrics or logs
 * exporter is set up (the relay's metrics are on /metrics).
 */
export function startTelemetry(env: Readonly<Record<string, string | undefined>> = process.env): Promise<Telemetry> {
  if (!tracingWanted(env)) return Promise.resolve(current);
  starting ??= load(env);
  return starting;
}

async function load(env: Readonly<Record<string, string | undefined>>): Promise<Telemetry> {
  // Loaded only when tracing is on: a relay without OTEL_* settings pays nothing for the SDK.
  const [{ NodeSDK }, { FastifyOtelInstrumentation }, { UndiciInstrumentation }, { envDetector, serviceInstanceIdDetector }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@fastify/otel'),
    import('@opentelemetry/instrumentation-undici'),
    import('@opentelemetry/resources'),
  ]);
  const traceExporter = await proxiedTraceExporter(env);
  const fastify = new FastifyOtelInstrumentation({ registerOnInitialization: false, ...fastifyTracingOptions });
  const undici = new UndiciInstrumentation(undiciTracingOptions);
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: 'fault-relay' }),
    // No process or host detectors: a command line or environment is not the collector's business.
    resourceDetectors: [envDetector, serviceInstanceIdDetector],
    ...(traceExporter ? { traceExporter } : {}),
    instrumentations: [fastify, undici],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  fastifyPlugin = fastify.plugin();
  const provider = () => (trace.getTracerProvider() as { getDelegate?: () => { forceFlush?: () => Promise<void> } }).getDelegate?.();
  current = {
    active: true,
    flush: async () => {
      await provider()?.forceFlush?.();
    },
    shutdown: async () => {
      await sdk.shutdown();
      // Stopped for good: a later start (another configuration) registers afresh.
      fastify.disable();
      undici.disable();
      trace.disable();
      context.disable();
      propagation.disable();
      current = INACTIVE;
      fastifyPlugin = undefined;
      starting = undefined;
    },
  };
  return current;
}
