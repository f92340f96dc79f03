/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: it stands in for, and loads, CommonJS Electron code. */
/**
 * Just enough of Electron's main-process API for the bundled main.cjs to run under plain Node.
 * Everything the app does to it is recorded in `__record` for the smoke test.
 */
const { EventEmitter } = require('node:events');

const record = { tooltips: [], menus: [], windows: [], loaded: [], quitRequests: 0, exited: false };
const events = new EventEmitter();
const handlers = new Map();

const app = Object.assign(new EventEmitter(), {
  isPackaged: false,
  requestSingleInstanceLock: () => true,
  whenReady: () => Promise.resolve(),
  getAppPath: () => process.env.FAKE_APP_PATH,
  getPath: () => process.env.FAKE_USER_DATA,
  getVersion: () => '0.0.0-test',
  getLoginItemSettings: () => ({ openAtLogin: false }),
  setLoginItemSettings: () => {},
  setAppUserModelId: () => {},
  exit: (code) => process.exit(code),
  quit() {
    record.quitRequests++;
    let prevented = false;
    app.emit('before-quit', { preventDefault: () => (prevented = true) });
    if (!prevented) {
      record.exited = true;
      events.emit('exit');
    }
  },
});

class Tray extends EventEmitter {
  setImage() {}
  setToolTip(text) {
    record.tooltips.push(text);
    events.emit('tooltip', text);
  }
  setContextMenu(menu) {
    record.menus.push(menu.map((i) => i.label).filter(Boolean));
  }
  destroy() {}
}

class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    record.windows.push(options.webPreferences);
    this.webContents = Object.assign(new EventEmitter(), { setWindowOpenHandler() {}, isDestroyed: () => false, send() {} });
  }
  loadFile(file) {
    record.loaded.push(file);
    return Promise.resolve();
  }
  once() {}
  show() {}
  focus() {}
  hide() {}
  isDestroyed() {
    return false;
  }
}

class Notification extends EventEmitter {
  show() {}
  close() {}
}

module.exports = {
  app,
  Tray,
  BrowserWindow,
  Notification,
  Menu: { buildFromTemplate: (template) => template },
  nativeImage: { createFromPath: (p) => p },
  clipboard: { writeText() {} },
  dialog: { showMessageBox: async () => ({ response: 1 }), showErrorBox() {} },
  shell: { openExternal() {}, openPath: async () => '' },
  session: {
    defaultSession: {
      setPermissionRequestHandler: (h) => (record.permissionHandlers = (record.permissionHandlers ?? 0) + (h ? 1 : 0)),
      setPermissionCheckHandler() {},
      setDevicePermissionHandler() {},
    },
  },
  safeStorage: { isEncryptionAvailable: () => false, getSelectedStorageBackend: () => 'basic_text', encryptString() {}, decryptString() {} },
  ipcMain: { handle: (channel, fn) => handlers.set(channel, fn), removeHandler: (channel) => handlers.delete(channel), on() {} },
  __record: record,
  __events: events,
  __handlers: handlers,
};
