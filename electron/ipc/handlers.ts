import type { Logger } from 'pino';
import type { ArgsOf, RequestChannel, RequestChannels, ResultOf } from './contract';
import { ipcArguments, REQUEST_CHANNELS } from './arguments';
import type { SenderFrame } from './trusted-sender';

/** What a handler reads of Electron's IpcMainInvokeEvent. */
export interface InvokeEvent {
  readonly senderFrame: SenderFrame | null;
}
export type IpcHandler = (event: InvokeEvent, ...args: unknown[]) => Promise<unknown>;

/** Crosses the IPC boundary as its message only: the renderer learns what to fix, nothing internal. */
export class IpcRequestError extends Error {
  override readonly name = 'IpcRequestError';
}

/**
 * Wraps the main-process API in handlers that refuse untrusted senders and validate every
 * argument with zod before the API is touched, so a refused or malformed call changes nothing.
 */
export function createIpcHandlers(deps: {
  api: RequestChannels;
  isTrusted: (frame: SenderFrame | null | undefined) => boolean;
  logger: Logger;
}): Record<RequestChannel, IpcHandler> {
  const { api, isTrusted, logger } = deps;

  const handlerFor = <K extends RequestChannel>(channel: K): IpcHandler => async (event, ...args) => {
    if (!isTrusted(event.senderFrame)) {
      logger.warn({ channel, url: event.senderFrame?.url }, 'IPC call refused: sender is not the Fault Relay window');
      throw new IpcRequestError(`${channel}: refused, the caller is not the Fault Relay window`);
    }
    const parsed = ipcArguments[channel].safeParse(args);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => {
        const [index, ...rest] = i.path;
        const where = typeof index === 'number' ? `argument ${index + 1}${rest.length ? ` (${rest.join('.')})` : ''}` : 'arguments';
        return `${where}: ${i.message}`;
      });
      throw new IpcRequestError(`${channel}: ${problems.join('; ')}`);
    }
    const method = api[channel] as (...a: ArgsOf<K>) => Promise<ResultOf<K>>;
    return method(...(parsed.data as ArgsOf<K>));
  };

  return Object.fromEntries(REQUEST_CHANNELS.map((channel) => [channel, handlerFor(channel)])) as Record<RequestChannel, IpcHandler>;
}
