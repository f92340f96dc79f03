import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createOutbox, httpSendResult, type SendResult, type StoredItem } from '../../../src/adapters/outbox/outbox';
import { openFileOutboxStore } from '../../../src/adapters/outbox/file-store';
import { silent } from '../../helpers/relay';
import { tempDir } from '../../helpers/temp-dir';
import { manualClock } from '../incidents/in-memory-incidents';

/** A receiver answering from a script, one answer per try; what it was given, in order. */
function scriptedReceiver(answers: SendResult[]) {
  const got: string[] = [];
  return {
    got,
    send: async (item: StoredItem): Promise<SendResult> => {
      got.push(item.key);
      return answers.shift() ?? { ok: true };
    },
  };
}

function laptopOutbox(dir: string, send: (item: StoredItem) => Promise<SendResult>, clock = manualClock()) {
  const outbox = createOutbox({ name: 'test', store: openFileOutboxStore(dir, 'test'), send, clock, logger: silent, backoff: () => 1_000, maxAttempts: 4 });
  onTestFinished(() => outbox.stop());
  return { outbox, clock };
}

describe('durable outbox on the laptop (append-only file)', () => {
  it('keeps an enqueued item across a crash (no close) and sends it once after the restart', async () => {
    const dir = tempDir('outbox-file-');
    const before = openFileOutboxStore(dir, 'test');
    expect(await before.add({ key: 'INC-1:page:0', kind: 'pagerduty', payload: { n: 1 } }, new Date())).toBe(true);
    // A torn line, as a kill -9 in the middle of a write leaves one.
    writeFileSync(before.path, readFileSync(before.path, 'utf8') + '{"op":"add","key":"torn', { flag: 'w' });

    const receiver = scriptedReceiver([]);
    const { outbox } = laptopOutbox(dir, receiver.send);
    expect(await outbox.enqueue({ key: 'INC-1:page:0', kind: 'pagerduty', payload: { n: 2 } })).toEqual({ queued: false });
    outbox.start();
    await outbox.idle();
    expect(receiver.got).toEqual(['INC-1:page:0']);
    expect(outbox.status()).toMatchObject({ backlog: 0, sent: 1, failed: 0 });
    await outbox.stop();

    const again = scriptedReceiver([]);
    const { outbox: restarted } = laptopOutbox(dir, again.send);
    expect(await restarted.enqueue({ key: 'INC-1:page:0', kind: 'pagerduty', payload: {} })).toEqual({ queued: false });
    restarted.start();
    await restarted.idle();
    expect(again.got).toEqual([]);
  });

  it('waits out Retry-After on a 429 before trying again, then sends', async () => {
    const rateLimited = httpSendResult(429, { 'retry-after': '30' }, '{"status":"throttle event"}');
    const receiver = scriptedReceiver([rateLimited]);
    const { outbox, clock } = laptopOutbox(tempDir('outbox-file-'), receiver.send);
    outbox.start();
    await outbox.enqueue({ key: 'k1', kind: 'pagerduty', payload: {} });
    await outbox.idle();
    expect(receiver.got).toEqual(['k1']);
    expect(outbox.status()).toMatchObject({ backlog: 1, last_error: { key: 'k1', permanent: false, reason: 'HTTP 429: {"status":"throttle event"}' } });
    clock.advance(29_000);
    await outbox.idle();
    expect(receiver.got).toEqual(['k1']);
    clock.advance(1_000);
    await outbox.idle();
    expect(receiver.got).toEqual(['k1', 'k1']);
    expect(outbox.status()).toMatchObject({ backlog: 0, sent: 1 });
  });

  it('reports a 400 at once and never tries it again', async () => {
    const finished: string[] = [];
    const receiver = scriptedReceiver([httpSendResult(400, {}, '{"status":"invalid event","errors":["\'payload.summary\' is missing"]}')]);
    const clock = manualClock();
    const outbox = createOutbox({ name: 'test', store: openFileOutboxStore(tempDir('outbox-file-'), 'test'), send: receiver.send, clock, logger: silent, onFinished: (item, outcome, reason) => finished.push(`${item.key} ${outcome} ${reason}`) });
    onTestFinished(() => outbox.stop());
    outbox.start();
    await outbox.enqueue({ key: 'k1', kind: 'pagerduty', payload: {} });
    await outbox.idle();
    clock.advance(3_600_000);
    await outbox.idle();
    expect(receiver.got).toEqual(['k1']);
    expect(finished).toEqual([`k1 failed HTTP 400: {"status":"invalid event","errors":["'payload.summary' is missing"]}`]);
    expect(outbox.status()).toMatchObject({ backlog: 0, failed: 1, last_error: { permanent: true } });
  });

  it('gives up on a receiver that keeps answering 503 after the bound of tries', async () => {
    const down = httpSendResult(503, {}, '');
    const receiver = scriptedReceiver([down, down, down, down, down]);
    const { outbox, clock } = laptopOutbox(tempDir('outbox-file-'), receiver.send);
    outbox.start();
    await outbox.enqueue({ key: 'k1', kind: 'opsgenie', payload: {} });
    for (let i = 0; i < 6; i++) {
      await outbox.idle();
      clock.advance(1_000);
    }
    await outbox.idle();
    expect(receiver.got).toEqual(['k1', 'k1', 'k1', 'k1']);
    expect(outbox.status()).toMatchObject({ backlog: 0, failed: 1, last_error: { reason: 'HTTP 503' } });
  });

  it('answers enqueue while the receiver hangs: the intake is never held by a send', async () => {
    let release!: () => void;
    const hanging = new Promise<SendResult>((resolve) => (release = () => resolve({ ok: true })));
    const { outbox } = laptopOutbox(tempDir('outbox-file-'), () => hanging);
    outbox.start();
    await outbox.enqueue({ key: 'k1', kind: 'x', payload: {} });
    expect(await outbox.enqueue({ key: 'k2', kind: 'x', payload: {} })).toEqual({ queued: true });
    release();
    await outbox.idle();
    expect(outbox.status()).toMatchObject({ backlog: 0, sent: 2 });
  });

  it('counts its backlog in what the items carry (a batch\'s events) as well as in items, across a restart', async () => {
    const dir = tempDir('outbox-units-');
    const receiver = scriptedReceiver([{ ok: false, permanent: false, reason: 'HTTP 503' }]);
    const { outbox } = laptopOutbox(dir, receiver.send);
    await outbox.enqueue({ key: 'batch-1', kind: 'splunk_hec', payload: {}, units: 5 });
    await outbox.enqueue({ key: 'batch-2', kind: 'splunk_hec', payload: {}, units: 3 });
    await outbox.enqueue({ key: 'page-1', kind: 'pagerduty', payload: {} });
    expect(outbox.status()).toMatchObject({ backlog: 3, backlog_units: 9 });
    await outbox.stop();
    const reopened = openFileOutboxStore(dir, 'test');
    expect([await reopened.backlog(), await reopened.backlogUnits()]).toEqual([3, 9]);
    await reopened.finish('batch-1', 'sent', undefined, new Date());
    expect([await reopened.backlog(), await reopened.backlogUnits()]).toEqual([2, 4]);
    await reopened.close();
  });
});
