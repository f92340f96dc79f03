import tseslint from 'typescript-eslint';

const rawIpcWrappers = ['electron/ipc/main-ipc.ts', 'electron/ipc/preload-ipc.ts'];

export default tseslint.config(
  {
    ignores: ['node_modules/**', 'dist/**', 'dist-electron/**', 'dist-renderer/**', 'release/**', 'out/**', 'logs/**'],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-exports': ['error', { restrictDefaultExports: { direct: true, named: true, defaultFrom: true } }],
    },
  },
  {
    // The relay core runs without Electron (headless relay, CI, tests).
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'src/ is plain Node: put Electron code in electron/.' }] }],
      // require() and import() escape no-restricted-imports.
      'no-restricted-syntax': ['error', {
        selector: "CallExpression[callee.name='require'][arguments.0.value='electron'], ImportExpression[source.value='electron']",
        message: 'src/ is plain Node: put Electron code in electron/.',
      }],
    },
  },
  {
    // Layering: the domain (incidents, approvals, the agents' tools) depends on ports, never on an
    // adapter. Alert sources (src/alert/source.ts is the port), operator channels
    // (src/approvals/operator-channel.ts), the device servers (the guard shares only the device-tool
    // error contract, src/devices/errors.ts), the stores and the team's database are adapters.
    files: ['src/incidents/**/*.ts', 'src/approvals/**/*.ts', 'src/tools/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: 'src/ is plain Node: put Electron code in electron/.' }],
        patterns: [
          { group: ['**/alert/schema', '**/alert/splunk', '**/alert/alertmanager*', '**/alert/normalize'], message: 'The domain takes normalized alerts (src/alert/source.ts), not a sender\'s wire format.' },
          { group: ['**/messaging/*', '**/slack/*'], message: 'The domain talks to people through the OperatorChannel port (src/approvals/operator-channel.ts), not a chat adapter.' },
          { group: ['**/devices/*', '!**/devices/errors'], message: 'The domain reaches devices through the device-tool contract, not the SSH/NETCONF server.' },
          { group: ['**/store-pg/*', '**/team/*', '**/relay/*'], message: 'The domain is wired by the relay; it imports no store backend, team or HTTP code.' },
        ],
      }],
    },
  },
  {
    // Raw IPC only in the two typed wrappers.
    files: ['electron/**/*.ts', 'renderer/**/*.ts', 'renderer/**/*.tsx'],
    ignores: rawIpcWrappers,
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', importNames: ['ipcMain', 'ipcRenderer'], message: 'Use the typed wrappers in electron/ipc/.' }],
      }],
      'no-restricted-syntax': ['error', {
        // Member access covers namespace imports and require('electron').ipcMain; the pattern covers destructuring.
        selector: "MemberExpression[property.name=/^(ipcMain|ipcRenderer)$/], ObjectPattern > Property[key.name=/^(ipcMain|ipcRenderer)$/]",
        message: 'Use the typed wrappers in electron/ipc/.',
      }],
    },
  },
  {
    // Config files are the tools' own convention.
    files: ['*.config.ts', '*.config.js'],
    rules: { 'no-restricted-exports': 'off' },
  },
);
