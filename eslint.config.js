import tseslint from 'typescript-eslint';
import { layersRule } from './eslint-rules/layers.js';

const typedFiles = ['{src,harness,scripts,electron,renderer,test}/**/*.{ts,tsx}', '*.config.ts'];
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
    // Layering: ARCHITECTURE.md's import direction, an allow-list per layer (eslint-rules/layers.js).
    files: ['src/**/*.ts', 'src/**/*.tsx', 'harness/**/*.ts'],
    plugins: { house: { rules: { layers: layersRule } } },
    rules: { 'house/layers': 'error' },
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
    // Type-aware checks: a promise nobody awaits loses its rejection, and a switch
    // over a union must say what happens to every member.
    files: typedFiles,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    },
  },
  {
    // A rejection's reason is whatever was thrown: read it with errorText() (src/core/error-body.ts), never as an Error.
    files: ['{src,harness,scripts,electron,renderer}/**/*.{ts,tsx}'],
    rules: { '@typescript-eslint/use-unknown-in-catch-callback-variable': 'error' },
  },
  {
    // Config files are the tools' own convention.
    files: ['*.config.ts', '*.config.js'],
    rules: { 'no-restricted-exports': 'off' },
  },
);
