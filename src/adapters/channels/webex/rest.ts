import {
  ADAPTIVE_CARD_CONTENT_TYPE,
  adaptiveCardSchema,
  attachmentActionSchema,
  messageSchema,
  personSchema,
  type AdaptiveCard,
  type AttachmentAction,
  type Message,
  type Person,
} from './schemas';
import { cutMarkdown, MARKDOWN_MAX_BYTES, splitMarkdown } from './markdown-split';
import type { WebexHttp } from './webex-http';

export const DEFAULT_API_URL = 'https://webexapis.com/v1';

export interface WebexRest {
  /** Posts markdown, split over several messages (threaded under `parentId` if given) when long. */
  postMarkdown(roomId: string, markdown: string, opts?: { parentId?: string }): Promise<Message[]>;
  /** One message with one Adaptive Card; `fallbackMarkdown` is what card-less clients show. */
  postCard(roomId: string, card: AdaptiveCard, fallbackMarkdown: string): Promise<Message>;
  /** The plaintext of a card submission (the websocket only carries it encrypted). */
  getAttachmentAction(id: string): Promise<AttachmentAction>;
  getMe(): Promise<Person>;
  getPerson(id: string): Promise<Person>;
}

export function createWebexRest(opts: { http: WebexHttp; apiUrl: string }): WebexRest {
  const { http } = opts;
  const base = opts.apiUrl.replace(/\/+$/, '');
  const at = (path: string, id?: string) => `${base}${path}${id === undefined ? '' : `/${encodeURIComponent(id)}`}`;

  return {
    async postMarkdown(roomId, markdown, o = {}) {
      if (!markdown.trim()) throw new Error('postMarkdown: markdown is empty');
      const posted: Message[] = [];
      // Sequential on purpose: the room must show the parts in order.
      for (const part of splitMarkdown(markdown)) {
        posted.push(await http.call('POST', at('/messages'), messageSchema, { roomId, markdown: part, ...(o.parentId ? { parentId: o.parentId } : {}) }));
      }
      return posted;
    },
    async postCard(roomId, card, fallbackMarkdown) {
      const parsed = adaptiveCardSchema.safeParse(card);
      if (!parsed.success) {
        throw new Error(`postCard: not a card Webex accepts: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      }
      const markdown = cutMarkdown(fallbackMarkdown.trim() || 'A card was sent; open Webex to see it.', MARKDOWN_MAX_BYTES);
      return http.call('POST', at('/messages'), messageSchema, {
        roomId,
        markdown,
        attachments: [{ contentType: ADAPTIVE_CARD_CONTENT_TYPE, content: parsed.data }],
      });
    },
    getAttachmentAction: (id) => http.call('GET', at('/attachment/actions', id), attachmentActionSchema),
    getMe: () => http.call('GET', at('/people/me'), personSchema),
    getPerson: (id) => http.call('GET', at('/people', id), personSchema),
  };
}
