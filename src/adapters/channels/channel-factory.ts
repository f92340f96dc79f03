import type { Logger } from 'pino';
import type { RelayConfig } from '../../config/schema';
import type { Clock } from '../../core/clock';
import type { OperatorChannel } from '../../core/approvals/operator-channel';
import type { ProxySettings } from '../net/proxy';

/** What the relay gives every channel's factory besides the settings: nothing about any product. */
export interface ChannelDeps {
  logger: Logger;
  clock?: Clock;
  /** HTTPS_PROXY / NO_PROXY: every outbound connection of a channel goes through it. */
  proxy?: ProxySettings;
}

/**
 * A channel's one entry point: it reads its own settings and builds everything it needs (its
 * socket, its HTTP client, its payloads), or returns undefined when the settings do not ask for it.
 */
export interface ChannelFactory {
  readonly name: string;
  fromConfig(settings: RelayConfig, deps: ChannelDeps): OperatorChannel | undefined;
}
