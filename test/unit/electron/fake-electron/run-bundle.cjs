/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: it stands in for, and loads, CommonJS Electron code. */
/**
 * Runs the bundled main process (argv[2]) against the fake Electron, waits until the relay has
 * started and reported health, calls IPC like the renderer would, quits, and prints what happened.
 */
const Module = require('node:module');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'electron' ? path.join(__dirname, 'electron.cjs') : resolve.call(this, request, ...rest);
};
const electron = require('electron');

electron.__events.on('tooltip', async function ready(text) {
  if (text.endsWith('Starting…')) return;
  electron.__events.off('tooltip', ready);
  const h = (name) => electron.__handlers.get(`fault-relay:${name}`);
  const ours = { senderFrame: { url: pathToFileURL(path.join(process.env.FAKE_APP_PATH, 'dist-renderer', 'index.html')).href, parent: null } };
  const out = { record: electron.__record, channels: [...electron.__handlers.keys()] };
  out.health = await h('health')(ours);
  out.groups = (await h('listArtifactGroups')(ours)).map((g) => g.alert_def_id);
  out.untrusted = await h('listIncidents')({ senderFrame: null }).catch((e) => e.message);
  electron.__events.once('exit', () => {
    process.stdout.write(`${JSON.stringify(out)}\n`);
    process.exit(0);
  });
  electron.app.quit();
});
require(path.resolve(process.argv[2]));
