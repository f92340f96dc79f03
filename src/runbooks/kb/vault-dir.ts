import path from 'node:path';

/** `KB_DIR` when set (relative to the working folder), else `kb/` of this project. */
export function resolveVaultDir(env: NodeJS.ProcessEnv, projectRoot: string): string {
  const configured = env.KB_DIR?.trim();
  return configured ? path.resolve(configured) : path.join(projectRoot, 'kb');
}

/** The project folder, from this file's place in `src/runbooks/kb/`. */
export const projectRoot = path.resolve(import.meta.dirname, '../../..');
