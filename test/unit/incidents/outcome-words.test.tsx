import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Header } from '../../../renderer/components/incident-view';
import { formatIssue, validateArtifactGroupDir } from '../../../src/runbooks/validate';
import type { ChangeRecord } from '../../../src/core/incidents/change';
import { incidentSchema } from '../../../src/core/incidents/model';
import { changeWords, configClaims, withoutConfigClaims } from '../../../src/core/incidents/outcome-words';
import { renderSessionLog } from '../../../src/core/incidents/session-log-markdown';

/** What every runbook's "did not come up" outcome used to end with, while the relay had rolled the change back. */
const SHIPPED = 'The maximum-prefix limit of neighbor 10.0.0.2 was raised to 120 on R1, but the session did not reach Established within the revalidation window; the peer side or the transport needs investigation. The configuration change remains in place.';

const rolledBack: ChangeRecord = {
  change_id: 'chg-1', device: 'R1', state: 'rolled_back', deadline: '2026-11-26T22:05:00Z', confirm_within_s: 120, applied_at: '2026-11-26T22:03:00Z',
  ended_at: '2026-11-26T22:04:00Z', ended_by: 'post_check_failed', person: null, detail: null,
};
const incident = (change: ChangeRecord | null, summary: string) =>
  incidentSchema.parse({
    incident_id: 'INC-1', session_id: 'ses_1', alert_def_id: 'AD000004', device_hostname: 'R1', mode: 'strict', state: 'failed',
    created_at: '2026-11-26T22:00:00.000Z', updated_at: '2026-11-26T22:06:00.000Z', occurrences: 1, last_seen: '2026-11-26T22:00:00.000Z', warnings: [], alert_vars: {},
    approval_request: null, approval: null, outcome: { kind: 'failed', summary, at: '2026-11-26T22:06:00.000Z' }, change,
    application: change ? { status: 'applied', device: 'R1', at: '2026-11-26T22:03:00Z', error: null } : undefined,
    dedup_key: 'k', delivery: { attempts: 1, next_attempt_at: null, last_error: null },
  });

describe('outcome words come from the change record', () => {
  it('finds a claim about what became of the configuration, and only that', () => {
    expect(configClaims(SHIPPED)).toEqual(['The configuration change remains in place.']);
    for (const claim of ['The change was rolled back.', 'The repair stays in place', 'Configuration reverted by the relay.', 'The change was confirmed by the post-check.']) expect(configClaims(`Neighbor down. ${claim}`)).toEqual([claim]);
    for (const fine of ['No change made.', 'The session is still down.', 'BGP neighbor 10.0.0.2 restored to Established.', "check the peer's outbound policy."]) expect(configClaims(fine)).toEqual([]);
    expect(withoutConfigClaims(SHIPPED)).toEqual({ text: SHIPPED.replace(' The configuration change remains in place.', ''), removed: ['The configuration change remains in place.'] });
  });

  it('says how the change ended from the record: rolled back and why, confirmed, rollback failed, or nothing applied', () => {
    expect(changeWords(incident(rolledBack, 's'))).toBe('Configuration change on R1: rolled back: post-check failed.');
    expect(changeWords(incident({ ...rolledBack, state: 'confirmed', ended_by: 'post_check' }, 's'))).toBe('Configuration change on R1: confirmed by post-check.');
    expect(changeWords(incident({ ...rolledBack, state: 'rollback_failed', ended_by: 'deadline', detail: 'still differs' }, 's'))).toBe('Configuration change on R1: ROLLBACK FAILED (not confirmed within 120 s): check the device: still differs.');
    expect(changeWords(incident(null, 's'))).toBe('No configuration change was applied.');
  });

  it('/ui and the session log put the relay\'s record beside the outcome', () => {
    const rolled = incident(rolledBack, 'The session did not reach Established.');
    const ui = renderToStaticMarkup(<Header incident={rolled} />);
    expect(ui).toContain('Configuration change (the relay&#x27;s record): Configuration change on R1: rolled back: post-check failed.');
    expect(renderSessionLog(rolled, [])).toContain("**Configuration change (the relay's record):** Configuration change on R1: rolled back: post-check failed.");
  });

  it('the validator refuses a RAW whose outcome text says what became of the configuration', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'artifacts-'));
    try {
      const group = join(dir, 'AD000004');
      await cp('intelligence-artifacts/AD000004', group, { recursive: true });
      const file = join(group, 'RAW.yaml');
      const raw = await readFile(file, 'utf8');
      await writeFile(file, raw.replace("investigation.\n", 'investigation. The configuration change remains in place.\n'));
      const { issues } = await validateArtifactGroupDir(group);
      expect(issues.map((i) => formatIssue(i))).toEqual([
        expect.stringMatching(/RAW\.yaml:\d+:\d+: the summary of fail_still_down says what became of the configuration \("The configuration change remains in place\."\); the relay says that itself, from its change record/),
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
