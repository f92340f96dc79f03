import type { Logger } from 'pino';
import { ConfigError } from '../src/config/load';
import type { RunningRelay } from '../src/relay/start-headless';
import { errorText } from '../src/core/error-body';

/** One line the user can act on, for the tray's status and the renderer's errors. */
export function startFailure(error: unknown): string {
  if (error instanceof ConfigError) return `invalid configuration: ${error.problems.join('; ')} (fix it in Settings)`;
  if ((error as { code?: string }).code === 'EADDRINUSE') return 'the port is already in use: set INGEST_PORT to a free port in Settings';
  return errorText(error);
}

/**
 * Holds the in-process relay. A relay that fails to start leaves the tray up with the
 * reason, so the user can fix the settings and restart instead of facing a dead app.
 */
export function createRelayHost(deps: { start: () => Promise<RunningRelay>; logger: Logger; onChange(running: RunningRelay | undefined): void }) {
  let running: RunningRelay | undefined;
  let failure: string | undefined;
  let busy: Promise<void> = Promise.resolve();

  const serial = (job: () => Promise<void>) => (busy = busy.then(job, job));

  const stopNow = async () => {
    const was = running;
    running = undefined;
    if (!was) return;
    deps.onChange(undefined);
    await was.stop();
  };

  /** A relay that cannot start keeps the tray up with the reason, never a crash. */
  const startNow = async () => {
    try {
      running = await deps.start();
      failure = undefined;
    } catch (error) {
      failure = startFailure(error);
      deps.logger.error({ err: error }, `relay did not start: ${failure}`);
    }
    deps.onChange(running);
  };

  return {
    current: () => running,
    failure: () => failure,
    /** The running relay, or an error saying why there is none. */
    require(): RunningRelay {
      if (running) return running;
      throw new Error(`the relay is not running: ${failure ?? 'it is starting'}`);
    },
    start: () =>
      serial(async () => {
        if (!running) await startNow();
      }),
    restart: () =>
      serial(async () => {
        await stopNow();
        await startNow();
      }),
    stop: () => serial(stopNow),
  };
}

export type RelayHost = ReturnType<typeof createRelayHost>;
