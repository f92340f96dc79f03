import { configClaims } from './outcome-claims';
import type { RepairActionWorkflow } from './schema-raw';
import type { IssueSink } from './validate-issues';
import type { YamlSource } from './yaml-source';

/**
 * A terminal step's summary says what was found and what is left to do, never what became of the
 * configuration: the relay says that from its change record (confirmed, rolled back and why,
 * rollback failed), and a runbook's "the configuration change remains in place" once stood beside a
 * change the relay had rolled back (src/core/incidents/outcome-words.ts finds such claims).
 */
export function checkOutcomeText(raw: RepairActionWorkflow, src: YamlSource, sink: IssueSink): void {
  raw.steps.forEach((s, i) => {
    if (s.kind !== 'resolve' && s.kind !== 'fail' && s.kind !== 'escalate') return;
    for (const claim of configClaims(s.summary)) {
      sink.at(
        src,
        ['steps', i, 'summary'],
        `the summary of ${s.id} says what became of the configuration ("${claim}"); the relay says that itself, from its change record`,
        'drop the sentence: the final message, /ui, the logs and the evidence add how the change ended (confirmed, rolled back and why, or rollback failed)',
      );
    }
  });
}
