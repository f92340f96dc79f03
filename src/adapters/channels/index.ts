import type { RelayConfig } from '../../config/schema';
import type { OperatorChannel } from '../../core/approvals/operator-channel';
import type { ChannelDeps, ChannelFactory } from './channel-factory';
import { slackChannel } from './slack/from-config';
import { webexChannel } from './webex/from-config';

export type { ChannelDeps, ChannelFactory } from './channel-factory';

/** Every operator channel the relay can build, in the order they are asked: adding one is its folder and a line here. */
export const CHANNEL_FACTORIES: readonly ChannelFactory[] = [webexChannel, slackChannel];

/** The channels the settings ask for, each built by its own factory. */
export function channelsFromConfig(settings: RelayConfig, deps: ChannelDeps, factories: readonly ChannelFactory[] = CHANNEL_FACTORIES): OperatorChannel[] {
  return factories.flatMap((factory) => factory.fromConfig(settings, deps) ?? []);
}
