import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OWN_PROCESS, SHARED } from '../projects';

/**
 * What a file in the shared worker must never do, because the next file in that process would inherit
 * it or wait on it: replace a module (without isolation vi.mock holds for the whole process), start a
 * PostgreSQL server (the isolated project's global setup gives each one its template), start the real
 * opencode runtime, or start the global OpenTelemetry SDK. Such a file belongs in OWN_PROCESS
 * (test/projects.ts).
 */
const MUST_HAVE_OWN_PROCESS: [RegExp, string][] = [
  [/\bvi\.mock\(/, 'vi.mock'],
  [/\busePostgres\(|\bstartLocalPostgres\(/, 'a PostgreSQL server'],
  [/\bstartOpencode\(|\bstartDemoStack\(/, 'opencode'],
  [/\bstartTelemetry\(/, 'the global OpenTelemetry SDK'],
];

describe('the shared test project', () => {
  it('holds the unit files and most relay files, and every file named as needing its own process exists', () => {
    expect(SHARED.filter((f) => f.startsWith('test/unit/')).length).toBeGreaterThan(100);
    expect(SHARED.some((f) => f.startsWith('test/relay/'))).toBe(true);
    for (const file of OWN_PROCESS) expect(() => readFileSync(file)).not.toThrow();
  });

  it('has no file that mocks a module, or starts PostgreSQL, opencode or the OpenTelemetry SDK', () => {
    const offending = SHARED.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return MUST_HAVE_OWN_PROCESS.filter(([pattern]) => pattern.test(text)).map(([, what]) => `${file}: ${what}`);
    });
    expect(offending).toEqual([]);
  });
});
