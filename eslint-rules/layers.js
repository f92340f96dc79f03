// The import direction of ARCHITECTURE.md, as an allow-list per layer: a file may import only the
// layers its own layer lists. Type-only imports count too: a type is a dependency on its owner.
import path from 'node:path';
import { LAYER_DEBTS } from './layer-debts.js';

const root = path.resolve(import.meta.dirname, '..');

/** Layer of a path relative to the project folder, or undefined for files outside the layered tree. */
export function layerOf(rel) {
  const p = rel.split(path.sep).join('/');
  if (p.startsWith('src/core/')) return 'core';
  if (p.startsWith('src/runbooks/')) return 'runbooks';
  if (p.startsWith('src/adapters/')) return 'adapters';
  if (p.startsWith('src/relay/')) return 'relay';
  if (p.startsWith('src/config/')) return 'config';
  if (p.startsWith('src/')) return 'src';
  if (p.startsWith('harness/')) return 'harness';
  if (p.startsWith('electron/')) return 'electron';
  if (p.startsWith('renderer/')) return 'renderer';
  return undefined;
}

/** Which layers each layer may import. */
export const ALLOWED = {
  config: ['config'],
  runbooks: ['runbooks'],
  core: ['core', 'runbooks', 'config'],
  adapters: ['adapters', 'core', 'runbooks', 'config'],
  relay: ['relay', 'adapters', 'core', 'runbooks', 'config'],
  harness: ['harness', 'relay', 'adapters', 'core', 'runbooks', 'config'],
};

const WHY = {
  config: 'the settings schema imports nothing but itself',
  runbooks: 'the runbook model imports nothing but itself',
  core: 'the core imports only the core and the runbook model; adapters implement its ports and the relay wires them',
  adapters: 'adapters import the core and the runbook model, never the relay or the dev harness',
  relay: 'nothing in src/ imports the dev harness, electron/ or renderer/',
  harness: 'the dev harness may use the product, never the tray',
};

export const layersRule = {
  meta: { type: 'problem', schema: [], messages: { up: '{{from}} ({{fromLayer}}) may not import {{to}} ({{toLayer}}): {{why}}.' } },
  create(context) {
    const file = path.relative(root, context.filename);
    const fromLayer = layerOf(file);
    if (!fromLayer || !ALLOWED[fromLayer]) return {};
    const check = (node, spec) => {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = path.relative(root, path.resolve(path.dirname(context.filename), spec));
      const toLayer = layerOf(target) ?? 'outside';
      if (ALLOWED[fromLayer].includes(toLayer)) return;
      const to = target.split(path.sep).join('/');
      const from = file.split(path.sep).join('/');
      if (LAYER_DEBTS.some(([f, t]) => f === from && to.startsWith(t))) return;
      context.report({ node, messageId: 'up', data: { from, fromLayer, to, toLayer, why: WHY[fromLayer] } });
    };
    return {
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value),
    };
  },
};
