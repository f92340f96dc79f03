import { describe, expect, it } from 'vitest';
import { humanLine } from '../../../src/adapters/log/console';
import { createSignInLinks, localOperator, withOperator } from '../../../src/relay/sign-in';

const line = (fields: Record<string, unknown>) => JSON.stringify({ level: 30, time: Date.UTC(2026, 10, 28, 22, 40, 1), pid: 7, hostname: 'h', app: 'fault-relay', ...fields });

describe('the relay\'s console as a person reads it', () => {
  it('shows the time, what happened and its flat facts; a warning says so; request lines stay in the JSON log only', () => {
    expect(humanLine(line({ msg: 'relay listening', url: 'http://127.0.0.1:8080', webex: false }))).toBe('22:40:01  relay listening  url=http://127.0.0.1:8080  webex=false');
    expect(humanLine(line({ level: 40, msg: 'stream lost', err: { message: 'ECONNRESET', stack: 'at …' } }))).toBe('22:40:01  warning:  stream lost  err=ECONNRESET');
    expect(humanLine(line({ msg: 'incoming request', req: { url: '/health' } }))).toBeUndefined();
    expect(humanLine('not json')).toBeUndefined();
  });

  it('escapes control characters an alert or a device put in a field: they never move the cursor or colour the terminal', () => {
    expect(humanLine(line({ msg: 'incident created', device: 'R1\u001b[2J\rX' }))).toBe('22:40:01  incident created  device=R1\\u{1b}[2J\\u{d}X');
  });
});

describe('one-time sign-in links for the local operator', () => {
  it('each link signs in once; the operator is an approver no bearer token matches', () => {
    const links = createSignInLinks(localOperator('jane'));
    const first = links.issue();
    const second = links.issue();
    expect(links.redeem(first)).toMatchObject({ name: 'jane', role: 'approver' });
    expect(links.redeem(first)).toBeUndefined();
    expect(links.redeem(second)?.name).toBe('jane');
    expect(links.redeem('frs_guess')).toBeUndefined();
    const team = withOperator(undefined, links.operator);
    expect(team.byToken(first)).toBeUndefined();
    expect(team.byEmail(links.operator.email)).toBe(links.operator);
    expect(team.approvers()).toBe(1);
  });
});
