import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from 'electron';

/**
 * "Start at login". Electron does it on macOS and Windows; on Linux it does nothing, so the
 * XDG autostart entry is written here (the AppImage's own path when run from one).
 */
export function createLoginItem(deps: {
  platform: NodeJS.Platform;
  app: Pick<App, 'getLoginItemSettings' | 'setLoginItemSettings'>;
  /** `~/.config/autostart` (XDG_CONFIG_HOME respected by the caller). */
  autostartDir: string;
  /** What to run: `$APPIMAGE` or the executable. */
  command: string;
}) {
  const entry = join(deps.autostartDir, 'fault-relay.desktop');
  const linux = deps.platform === 'linux';
  return {
    isEnabled: () => (linux ? existsSync(entry) : deps.app.getLoginItemSettings().openAtLogin),
    setEnabled(enabled: boolean) {
      if (!linux) return deps.app.setLoginItemSettings({ openAtLogin: enabled, args: ['--hidden'] });
      if (!enabled) return rmSync(entry, { force: true });
      mkdirSync(deps.autostartDir, { recursive: true });
      // Quoted per the Desktop Entry spec: the path may hold spaces.
      const exec = `"${deps.command.replace(/(["`$\\])/g, '\\$1')}" --hidden`;
      writeFileSync(entry, ['[Desktop Entry]', 'Type=Application', 'Name=Fault Relay', `Exec=${exec}`, 'X-GNOME-Autostart-enabled=true', ''].join('\n'), { mode: 0o644 });
    },
  };
}
