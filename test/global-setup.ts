import type { TestProject } from 'vitest/node';
import { createPostgresTemplate, findPostgresBin } from '../src/adapters/store-pg/local-server';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A cluster initdb made once for the run; every test file's server starts from a copy (test/helpers/postgres.ts). */
    pgTemplate: string;
  }
}

/**
 * Once per test run, before any file: about thirty files each start their own PostgreSQL server
 * (several stop, kill or restart it), and initdb was most of each start's work.
 */
let removeTemplate = () => {};

export async function setup(project: TestProject) {
  if (!findPostgresBin()) return;
  const template = await createPostgresTemplate();
  removeTemplate = template.remove;
  project.provide('pgTemplate', template.dataDir);
}

export function teardown() {
  removeTemplate();
}
