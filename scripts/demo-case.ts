/**
 * `npm run demo -- --alert AD0000NN`: any artifact group's own scenario, end to end. The group's first
 * test case that a person approves and that ends resolved (with --frr, the first marked for FRR, with
 * its FRR names) is built in the lab, and its alert goes to the relay: on the simulated lab as the case
 * describes it, on FRR as the router's own log line becomes it through the watcher.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { loadArtifactGroup } from '../src/runbooks/load';
import { forFrr, type RawTestCase } from '../src/runbooks/schema-test-case';
import type { ArtifactGroup } from '../src/runbooks/validate';
import { alertPayload } from '../harness/eval/alert-payload';

export interface DemoCase {
  group: ArtifactGroup;
  tc: RawTestCase;
  file: string;
}

export async function demoCase(projectDir: string, alertDefId: string, frr: boolean): Promise<DemoCase> {
  const dir = path.join(projectDir, 'intelligence-artifacts');
  const known = readdirSync(dir).filter((d) => /^AD\d{6}$/.test(d)).sort();
  if (!known.includes(alertDefId)) throw new Error(`no artifact group ${alertDefId} under intelligence-artifacts/ (there are ${known.join(', ')}; npm run artifacts:new makes one)`);
  const group = await loadArtifactGroup(dir, alertDefId);
  for (const { file, testCase } of group.tests) {
    if (testCase.approval !== 'APPROVED' || testCase.expect.outcome !== 'resolved' || testCase.lab.faults.length === 0 || testCase.lab.inventory) continue;
    if (frr && !testCase.platforms.includes('frr')) continue;
    return { group, tc: frr ? forFrr(testCase) : testCase, file };
  }
  throw new Error(`${alertDefId} has no test case to show: one that is approved, ends resolved and builds a lab fault${frr ? ', marked for FRR (platforms: [iosxe, frr])' : ''}`);
}

/** The case's alert, posted as Splunk would; resolves with "<incident id> <status>". */
export async function postCaseAlert(relayUrl: string, c: DemoCase): Promise<string> {
  const res = await request(`${relayUrl}/fault-alert`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(alertPayload(c.group.alert_def_id, c.group.fs.title, c.tc)),
  });
  const body = (await res.body.json()) as { incident_id?: string; status?: string };
  if (res.statusCode !== 202 || !body.incident_id) throw new Error(`the relay answered ${res.statusCode}: ${JSON.stringify(body)}`);
  return `${body.incident_id} ${body.status ?? ''}`;
}
