import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * How a terminal UI on this machine attaches to the relay's embedded runtime (`npm run headed`):
 * its URL and per-run password, in the relay's data folder, readable by this OS user only. So the
 * operator never copies a secret by hand, and the headed run's session lives on the runtime the
 * relay follows (its timeline fills live, tray and Webex decisions reach it).
 */
export const runtimeAttachSchema = z.object({
  relay_url: z.string(),
  agent_url: z.string(),
  username: z.string(),
  password: z.string(),
  project_dir: z.string(),
  /**
   * The terminal's decision credential (routes/headed-terminal.ts). Only here, readable by this OS
   * user: the runtime's environment never holds it, so nothing the model runs can decide.
   */
  terminal_secret: z.string().min(32),
});
export type RuntimeAttach = z.infer<typeof runtimeAttachSchema>;

export const runtimeAttachPath = (dataDir: string) => join(dataDir, 'runtime-attach.json');

export function writeRuntimeAttach(dataDir: string, info: RuntimeAttach): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(runtimeAttachPath(dataDir), JSON.stringify(info), { mode: 0o600 });
}

export function removeRuntimeAttach(dataDir: string): void {
  rmSync(runtimeAttachPath(dataDir), { force: true });
}

/** The relay's attach file, or why there is none usable. */
export function readRuntimeAttach(dataDir: string): { ok: true; info: RuntimeAttach } | { ok: false; reason: string } {
  let text: string;
  try {
    text = readFileSync(runtimeAttachPath(dataDir), 'utf8');
  } catch {
    return { ok: false, reason: `no ${runtimeAttachPath(dataDir)}: the relay is not running here with its embedded runtime (AGENT_URL set, or another RELAY_DATA_DIR)` };
  }
  const parsed = runtimeAttachSchema.safeParse(JSON.parse(text));
  return parsed.success ? { ok: true, info: parsed.data } : { ok: false, reason: `${runtimeAttachPath(dataDir)} is not readable` };
}
