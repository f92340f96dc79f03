import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApprovalCard } from '../../../src/adapters/channels/webex/approval-card';
import { MARKDOWN_MAX_BYTES, splitMarkdown } from '../../../src/adapters/channels/webex/markdown-split';
import { createWebexBot, type WebexBot } from '../../../src/adapters/channels/webex/webex-bot';
import { newRoomId, startWebexFake, type WebexFake } from '../../fakes/webex';

const TOKEN = 'room-messages-token';
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('messages to the room (REST only, no websocket needed)', () => {
  let fake: WebexFake;
  let roomId: string;
  let bot: WebexBot;

  beforeEach(async () => {
    roomId = newRoomId();
    fake = await startWebexFake({ token: TOKEN, roomId });
    bot = createWebexBot({
      token: TOKEN,
      roomId,
      u2cUrl: fake.u2cUrl,
      apiUrl: fake.apiUrl,
      logger: pino({ level: 'silent' }),
      onCardSubmission: () => {},
    });
  });

  afterEach(async () => {
    await bot.stop();
    await fake.stop();
  });

  it('posts short markdown as one message', async () => {
    const ids = await bot.postMarkdown('**Fault received** on `rtr-edge-01`');
    expect(ids).toHaveLength(1);
    expect(fake.postedMessages(roomId).map((m) => m.markdown)).toEqual(['**Fault received** on `rtr-edge-01`']);
  });

  it('splits long markdown into messages Webex accepts, in order, threaded, without losing lines', async () => {
    const lines = Array.from({ length: 400 }, (_, i) => `- step ${i}: neighbor 10.0.0.${i % 250} état vérifié ✅`);
    const parent = (await bot.postMarkdown('Run started'))[0]!.id;

    const ids = await bot.postMarkdown(lines.join('\n'), { parentId: parent });

    const parts = fake.postedMessages(roomId).slice(1);
    expect(ids.map((i) => i.id)).toEqual(parts.map((p) => p.id));
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) {
      expect(bytes(p.markdown ?? '')).toBeLessThanOrEqual(MARKDOWN_MAX_BYTES);
      expect(p.parentId).toBe(parent);
    }
    expect(parts.map((p) => p.markdown).join('\n').split('\n')).toEqual(lines);
  });

  it('cuts text beyond five messages and says so in the last one', async () => {
    const huge = 'x'.repeat(MARKDOWN_MAX_BYTES * 8);

    const ids = await bot.postMarkdown(huge);

    expect(ids).toHaveLength(5);
    const last = fake.postedMessages(roomId).at(-1)!.markdown!;
    expect(last).toMatch(/message cut: about \d+ more bytes not shown/);
    expect(bytes(last)).toBeLessThanOrEqual(MARKDOWN_MAX_BYTES);
  });

  it('keeps code blocks intact across parts', () => {
    const code = ['```', ...Array.from({ length: 600 }, (_, i) => `interface Gi0/${i} description uplink-${i}`), '```'].join('\n');

    const parts = splitMarkdown(code);

    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) {
      expect(p.startsWith('```')).toBe(true);
      expect(p.endsWith('```')).toBe(true);
      expect(bytes(p)).toBeLessThanOrEqual(MARKDOWN_MAX_BYTES);
    }
  });

  it('never splits a multi-byte character', () => {
    const parts = splitMarkdown('🚨'.repeat(5000), { maxParts: 10 });
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.join('')).toBe('🚨'.repeat(5000));
  });

  it('posts the approval card as one Adaptive Card 1.3 attachment with a markdown fallback', async () => {
    const card = buildApprovalCard({
      incident_id: 'INC-1',
      request_id: 'REQ-TEST-0001',
      alert_def_id: 'AD000002',
      device: 'rtr-edge-01',
      summary: 'Re-enable the BGP neighbor.',
      commands: ['no neighbor 10.0.0.2 shutdown'],
    });

    const { id } = await bot.postCard(card, 'Approval needed for INC-1');

    const [m] = fake.postedMessages(roomId);
    expect(m?.id).toBe(id);
    expect(m?.markdown).toBe('Approval needed for INC-1');
    expect(m?.attachments).toEqual([{ contentType: 'application/vnd.microsoft.card.adaptive', content: card }]);
  });

  it('refuses a card Webex would not render, posting nothing', async () => {
    const bad = { type: 'AdaptiveCard', version: '1.5', body: [] };
    await expect(bot.postCard(bad as never, 'fallback')).rejects.toThrow(/version.*1\.3/);
    expect(fake.postedMessages()).toEqual([]);
  });

  it('reports a room the bot is not in with the status and the Webex message, not the token', async () => {
    const other = createWebexBot({
      token: TOKEN,
      roomId: newRoomId(),
      u2cUrl: fake.u2cUrl,
      apiUrl: fake.apiUrl,
      logger: pino({ level: 'silent' }),
      onCardSubmission: () => {},
    });
    const error = await other.postMarkdown('hello').catch((e: Error) => e);
    expect(String(error)).toMatch(/POST \/v1\/messages failed: HTTP 404: Could not find a room/);
    expect(String(error)).not.toContain(TOKEN);
  });
});
