/**
 * The tray app's main process: lifecycle and wiring only. Everything with a decision in it
 * lives in the modules it wires, which tests drive with fake Electron APIs.
 */
import { app, BrowserWindow, clipboard, dialog, Menu, nativeImage, safeStorage, session, shell, Tray } from 'electron';
import { spawnSync } from 'node:child_process';
import Store from 'electron-store';
import { homedir, userInfo } from 'node:os';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { systemClock } from '../src/core/clock';
import type { Decision } from '../src/core/incidents/model';
import { createLogger } from '../src/adapters/log/logger';
import { startHeadlessRelay } from '../src/relay/start-headless';
import { startTelemetry, stopTelemetry } from '../src/adapters/telemetry/sdk';
import { createFileBackends } from '../src/core/incidents/file-backend';
import { isTrayDeviceServer, runTrayDeviceServer, trayDeviceServerLaunch } from '../src/adapters/devices/tray-device-server';
import { decisionDialogOptions } from './decision-dialog';
import { createDesktopApi } from './desktop-api';
import { createTeamClient } from './team-client';
import { teamEventsToBus } from './team-events';
import { createTeamDesktopApi } from './team-desktop-api';
import { createBus } from '../src/core/events/bus';
import type { RelayEvents } from '../src/core/incidents/events';
import { headedPromptInput } from './headed-prompt';
import { createHealthMonitor } from './health-monitor';
import { createIpcHandlers } from './ipc/handlers';
import type { RequestChannels } from './ipc/contract';
import { createSenderCheck } from './ipc/trusted-sender';
import { createLoginItem } from './login-item';
import { desktopDefaults, desktopPaths } from './paths';
import { createRelayHost } from './relay-host';
import { createSecretStore } from './secrets';
import { createSettings } from './settings';
import { createTrayController } from './tray';
import { TRAY_STATES } from './tray-state';
import { followLaptopRelay, followTeamRelay, type Windows } from './tray-wiring';
import { hideOnClose, lockDownNavigation, WINDOW_SIZE } from './windows';
import { sendToRenderer, serveIpc } from './ipc/main-ipc';
import { denyAllPermissions, setUpPlatform, startsHidden, trayIsVisible } from './desktop-platform';
import { errorText } from '../src/core/error-body';

if (isTrayDeviceServer(process.argv)) {
  // This executable started by the tray as its detached device server (it outlives the tray on purpose).
  runTrayDeviceServer({ argv: process.argv, logger: pino({ level: process.env.LOG_LEVEL ?? 'info' }), exit: (code) => app.exit(code), hideDock: () => app.dock?.hide() });
} else if (!app.requestSingleInstanceLock()) {
  // Two trays would fight over the port and the store: the first one takes over.
  app.quit();
} else {
  void app.whenReady().then(run);
}

async function run() {
  setUpPlatform({ app, platform: process.platform });
  denyAllPermissions(session.defaultSession);
  const trayVisible = trayIsVisible({ platform: process.platform, env: process.env, statusNotifierWatcher: hasStatusNotifierWatcher() });
  const paths = desktopPaths({ isPackaged: app.isPackaged, appPath: app.getAppPath(), resourcesPath: process.resourcesPath, userData: app.getPath('userData') });
  // Synchronous, as the headless relay's standard output (syncStdout): a crash keeps the last lines.
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'info', destination: pino.destination({ dest: join(paths.logDir, 'fault-relay.log'), mkdir: true, sync: true }) });
  const user = userInfo().username;
  let servedPort: number | undefined;
  const settings = traySettings(paths, logger, () => servedPort);
  // Where electron-store kept them, in its layout: the file backend checks every write's length, which a full disk needs.
  const incidentsBackends = createFileBackends(app.getPath('userData'));
  // "Team relay" mode: the tray follows the team's relay with the engineer's own token; no relay or
  // runtime runs here. "This laptop" (the default) runs both in-process.
  const teamUrl = settings.env().TEAM_RELAY_URL;
  const teamBus = createBus<RelayEvents>((error, type) => logger.error({ err: error, event: type }, 'tray event handler failed'));
  const team = teamUrl
    ? createTeamClient({
        url: teamUrl,
        token: settings.env().TEAM_RELAY_TOKEN ?? '',
        logger,
        onEvent: teamEventsToBus(teamBus, () => trayController.refresh()),
        onStatus: (s) => trayController.setHealth({ ok: s.connected, ...(s.problem ? { problem: s.problem } : {}) }),
      })
    : undefined;
  const loginItem = createLoginItem({ platform: process.platform, app, autostartDir: join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'autostart'), command: process.env.APPIMAGE ?? process.execPath });

  let quitting = false;
  let restartPending = false;
  const windows = windowOpener(paths, trayVisible, () => quitting);
  const showWindow = windows.show;
  const icons = Object.fromEntries(TRAY_STATES.map((s) => [s, nativeImage.createFromPath(join(paths.assetsDir, `tray-${s}.png`))])) as Record<(typeof TRAY_STATES)[number], Electron.NativeImage>;

  const api = team
    ? createTeamDesktopApi({ team, settings, clipboard, artifactsDir: paths.artifactsDir, teamUrl: teamUrl! })
    : createDesktopApi({
    host: { current: () => host.current(), require: () => host.require(), failure: () => host.failure() },
    settings,
    clipboard,
    user,
    artifactsDir: paths.artifactsDir,
    sessionLogPath: (incident) => host.require().relay.sessionLogPath(incident),
    onSettingsSaved: () => {
      restartPending = true;
      trayController.refresh();
    },
  });

  const tray = new Tray(icons.idle);
  const prompt = () => headedPromptInput(host.current()?.relay.incidents.list()[0], host.current()?.config.REMEDIATION_MODE ?? 'strict');
  const trayController = createTrayController({
    tray,
    buildMenu: (template) => Menu.buildFromTemplate(template),
    icons,
    incidents: () => (team ? team.incidents() : (host.current()?.relay.incidents.open() ?? [])),
    pending: () => (team ? team.pending() : (host.current()?.relay.approvals.pending() ?? [])),
    extras: () => ({ promptFor: prompt().label, startAtLogin: loginItem.isEnabled(), restartPending }),
    actions: trayMenuActions({
      confirmDecision: (id, decision) => confirmFromMenu(api, team ? team.incident(id) : host.current()?.relay.incidents.get(id), decision),
      showWindow,
      copyHeadedPrompt: () => api.directPrompt(prompt().input),
      logDir: () => resolve(host.current()?.config.RELAY_LOG_DIR ?? paths.logDir),
      loginItem,
      // Switching between "this laptop" and "team relay" starts the app afresh; other settings restart the relay.
      restartRelay: () => {
        if (team || settings.env().TEAM_RELAY_URL) {
          app.relaunch();
          app.quit();
        } else void host.restart().then(() => (restartPending = false));
      },
      logger,
    }),
  });
  tray.on('click', () => showWindow());
  const health = createHealthMonitor({ check: () => api.health(), clock: systemClock, intervalMs: 60_000, onHealth: (h) => trayController.setHealth(h) });
  // Elapsed times and approval countdowns move on their own: the tooltip and menu are redrawn every 15 s.
  setInterval(() => trayController.refresh(), 15_000).unref();

  let detach: (() => void) | undefined;
  const host = createRelayHost({
    logger,
    // Tracing from the tray's own OTEL_* environment, started once before the first relay (a no-op without them).
    start: async () => {
      await startTelemetry(process.env);
      return startHeadlessRelay({ env: settings.env(), settingSources: settings.sources(), logger, backends: incidentsBackends, extraChannels: () => ['desktop'], deviceServerLaunch: trayDeviceServerLaunch(app, process.execPath, process.env.APPIMAGE) });
    },
    onChange(running) {
      detach?.();
      detach = undefined;
      servedPort = running ? Number(new URL(running.url).port) : undefined;
      if (running) {
        const offFollow = followLaptopRelay(running, { trayController, windows, user, logger });
        const offState = running.embedded?.onState(() => void health.checkNow()) ?? (() => {});
        detach = () => {
          offFollow();
          offState();
        };
      }
      void health.checkNow();
    },
  });

  serveIpc(createIpcHandlers({ api, isTrusted: createSenderCheck(paths.rendererUrl), logger }));

  app.on('second-instance', () => showWindow());
  app.on('activate', () => showWindow());
  // The tray keeps the relay running; only Quit ends it.
  app.on('window-all-closed', () => undefined);
  stopOnQuit(() => {
    quitting = true;
    health.stop();
    return host.stop().then(() => stopTelemetry());
  }, tray);

  if (team) {
    followTeamRelay(team, teamBus, api, { trayController, windows, user, logger, quarantined: health.quarantined });
    void health.checkNow();
  } else await host.start();
  if (!startsHidden(process.argv, trayVisible)) showWindow();
}

/** Asks the session bus whether a status-notifier host (a place for tray icons) is there; undefined when it cannot tell. */
function hasStatusNotifierWatcher(): boolean | undefined {
  if (process.platform !== 'linux') return undefined;
  const r = spawnSync('gdbus', ['call', '--session', '--dest', 'org.freedesktop.DBus', '--object-path', '/org/freedesktop/DBus', '--method', 'org.freedesktop.DBus.NameHasOwner', 'org.kde.StatusNotifierWatcher'], { encoding: 'utf8', timeout: 2000 });
  if (r.status !== 0) return undefined;
  return /\btrue\b/.test(r.stdout);
}

/** The menu's Approve/Deny: asked again in a dialog that shows the request, then decided through the api for that request only. */
async function confirmFromMenu(api: RequestChannels, incident: Parameters<typeof decisionDialogOptions>[0] | undefined, decision: Decision): Promise<void> {
  if (!incident) return;
  const incidentId = incident.incident_id;
  // The request the dialog shows is the one decided: a newer request is never decided from it.
  const requestId = incident.approval_request?.request_id ?? '';
  const { response } = await dialog.showMessageBox(decisionDialogOptions(incident, decision));
  if (response !== 0) return;
  const outcome = await api.decide(incidentId, requestId, decision);
  if (outcome.status === 'recorded') dialog.showMessageBoxSync({ type: 'info', title: 'Approval counted', message: `${incidentId}: ${outcome.message}` });
  else if (outcome.status !== 'accepted') dialog.showErrorBox('Decision not applied', `${incidentId}: ${outcome.status === 'refused' ? outcome.message : outcome.status.replace(/_/g, ' ')}`);
}

/** Quit waits for `stop` (the relay and its runtime, the exporter), once, then ends the app; the tray goes last. */
function stopOnQuit(stop: () => Promise<void>, tray: Tray): void {
  let stopped = false;
  let stopping = false;
  app.on('before-quit', (event) => {
    if (stopped) return;
    event.preventDefault();
    if (stopping) return;
    stopping = true;
    void stop().finally(() => {
      stopped = true;
      tray.destroy();
      app.quit();
    });
  });
}

/** What the tray's menu does: each entry one line here, its work in the modules it names. */
function trayMenuActions(d: {
  confirmDecision(incidentId: string, decision: Decision): Promise<void>;
  showWindow(incidentId?: string): void;
  copyHeadedPrompt(): Promise<string>;
  logDir(): string;
  loginItem: ReturnType<typeof createLoginItem>;
  restartRelay(): void;
  logger: pino.Logger;
}): Parameters<typeof createTrayController>[0]['actions'] {
  return {
    confirmDecision: (id, decision) => void d.confirmDecision(id, decision).catch((error: unknown) => d.logger.error({ err: error }, 'decision failed')),
    openIncident: (id) => d.showWindow(id),
    openDashboard: () => d.showWindow(),
    copyHeadedPrompt: () =>
      void d
        .copyHeadedPrompt()
        .then((text) => clipboard.writeText(text))
        .catch((error: unknown) => dialog.showErrorBox('Headed mode', errorText(error))),
    openSessionLogs: () => {
      // The folder appears with the first finished run; open it (empty) before that too.
      const dir = join(d.logDir(), 'troubleshooting');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      void shell.openPath(dir);
    },
    setStartAtLogin: (enabled) => d.loginItem.setEnabled(enabled),
    restartRelay: d.restartRelay,
    quit: () => app.quit(),
  };
}

/** The tray's settings, kept by electron-store (secrets through the OS keychain's safeStorage). */
function traySettings(paths: ReturnType<typeof desktopPaths>, logger: pino.Logger, servedPort: () => number | undefined) {
  const store = (name: string) => new Store<Record<string, unknown>>({ name, configFileMode: 0o600, clearInvalidConfig: false });
  const secrets = createSecretStore({ backend: store('secrets'), safeStorage, platform: process.platform, logger });
  return createSettings({
    backend: store('settings'),
    secrets,
    baseEnv: { ...desktopDefaults(paths), ...process.env },
    desktopDefaults: desktopDefaults(paths),
    servedPort,
  });
}

/** The tray's one window (the renderer), made on first use, hidden rather than closed while the tray runs. */
function windowOpener(paths: ReturnType<typeof desktopPaths>, trayVisible: boolean | undefined, quitting: () => boolean): Windows {
  let window: BrowserWindow | undefined;
  function show(incidentId?: string) {
    if (!window || window.isDestroyed()) {
      window = new BrowserWindow({
        ...WINDOW_SIZE,
        webPreferences: {
          preload: paths.preload,
          sandbox: true,
          contextIsolation: true,
          nodeIntegration: false,
          nodeIntegrationInWorker: false,
          webSecurity: true,
          allowRunningInsecureContent: false,
          spellcheck: false,
        },
      });
      lockDownNavigation(window.webContents, (url) => void shell.openExternal(url));
      hideOnClose(window, quitting, trayVisible);
      window.once('ready-to-show', () => window?.show());
      void window.loadFile(paths.rendererIndex);
    } else window.show();
    window.focus();
    if (incidentId) sendToRenderer(window.webContents, 'open-incident', incidentId);
  }
  return {
    show,
    /** To the window's renderer, when there is a window. */
    send: (channel: Parameters<typeof sendToRenderer>[1], payload: Parameters<typeof sendToRenderer>[2]) => {
      if (window) sendToRenderer(window.webContents, channel, payload);
    },
  };
}
