import type { AdaptiveCard } from '../messaging/schemas';

/** The room where operators see messages and approval cards (Webex today). */
export interface OperatorRoom {
  postMarkdown(markdown: string): Promise<unknown>;
  postCard(card: AdaptiveCard, fallbackMarkdown: string): Promise<{ id: string }>;
}
