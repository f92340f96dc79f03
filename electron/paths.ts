import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface DesktopPaths {
  /** Where the embedded runtime runs: `.opencode/`, `opencode.json`, artifacts, kb. */
  projectDir: string;
  artifactsDir: string;
  rendererIndex: string;
  rendererUrl: string;
  preload: string;
  assetsDir: string;
  dataDir: string;
  logDir: string;
}

/**
 * In a package the runtime's project files are extra resources on disk (a process cannot
 * run inside app.asar); in development they are the repository itself.
 */
export function desktopPaths(app: { isPackaged: boolean; appPath: string; resourcesPath: string; userData: string }): DesktopPaths {
  const projectDir = app.isPackaged ? join(app.resourcesPath, 'project') : app.appPath;
  const rendererIndex = join(app.appPath, 'dist-renderer', 'index.html');
  return {
    projectDir,
    artifactsDir: join(projectDir, 'intelligence-artifacts'),
    rendererIndex,
    rendererUrl: pathToFileURL(rendererIndex).href,
    preload: join(app.appPath, 'dist-electron', 'preload.cjs'),
    assetsDir: join(app.appPath, 'electron', 'assets'),
    dataDir: join(app.userData, 'relay-data'),
    logDir: join(app.userData, 'logs'),
  };
}

/** The tray's own defaults; the environment and saved settings override them. */
export const desktopDefaults = (paths: DesktopPaths): Record<string, string> => ({
  RELAY_DATA_DIR: paths.dataDir,
  RELAY_LOG_DIR: paths.logDir,
  RELAY_PROJECT_DIR: paths.projectDir,
});
