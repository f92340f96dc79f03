/** A files store holding many finished incidents, as the relay would have written it, and what reading it costs at the least. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileBackends } from '../../src/core/incidents/file-backend';
import { NO_APPLICATION, type Incident } from '../../src/core/incidents/model';
import { incidentStamp } from '../../src/core/incidents/store-load';
import { ms } from './stats';

/** `count` finished incidents, written (and sealed) as the files store keeps its archive. */
export function fillArchive(dir: string, count: number) {
  const at = new Date(Date.now() - 86_400_000);
  const list: Incident[] = [];
  for (let i = 0; i < count; i++) {
    const when = new Date(at.getTime() + i).toISOString();
    list.push({
      incident_id: `INC-G${String(i).padStart(6, '0')}`, kind: 'relay', session_id: `ses_g${i}`, alert_def_id: 'AD000002', device_hostname: `G${i % 500}`, mode: 'strict',
      dedup_key: `g${i}`, state: 'resolved', created_at: when, updated_at: when, last_seen: when, occurrences: 1, warnings: [],
      alert_vars: { neighbor_ip: '10.0.0.2', neighbor_as: '65002' }, field_sources: null, severity: null, progress: null, approval_request: null, approval: null,
      application: NO_APPLICATION, change: null, outcome: { kind: 'resolved', summary: 'neighbor Established, 12 prefixes', at: when }, prompt_text: null,
      delivery: { attempts: 1, next_attempt_at: null, last_error: null },
    });
  }
  createFileBackends(dir).archive.set('incidents', list, incidentStamp());
}

/** The baseline a start is measured against: reading the store's files and JSON.parse of them, nothing else (wall-clock and processor ms). */
export function readAndParse(dir: string): { ms: number; cpuMs: number } {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (const name of ['incidents.json', 'incidents-archive.json']) {
    try {
      JSON.parse(readFileSync(join(dir, name), 'utf8'));
    } catch {
      // Not there: nothing to read.
    }
  }
  const used = process.cpuUsage(cpu);
  return { ms: ms(start), cpuMs: (used.user + used.system) / 1000 };
}
