import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Mode lines an operator types, not configuration: the dry run reads a configuration file, which has none. */
const MODE_LINE = /^\s*(configure(\s+terminal)?|conf\s+t(erm(inal)?)?)\s*$/i;
const LINE_PROBLEM = /^line (\d+): (.*)$/;

/**
 * FRR's own command parser on the change's lines, without a router: `vtysh --dryrun -f <file>` reads
 * a configuration file with the command definitions of every daemon compiled into vtysh, reports each
 * line it does not accept ("% Unknown command", a value out of range) and changes nothing anywhere.
 * FRR 8.4 has no way to do this on the router itself without applying the line, so the device server
 * runs the vtysh of its own host: the same FRR as the routers in the lab, and in production the same
 * major version as the routers it reaches, or no check (undefined) where it has no vtysh.
 */
export async function frrParserCheck(lines: readonly string[], vtysh = process.env.FRR_VTYSH ?? 'vtysh'): Promise<{ problems: string[] } | undefined> {
  const kept = lines.map((text, index) => ({ text, index })).filter((l) => !MODE_LINE.test(l.text));
  const dir = mkdtempSync(join(tmpdir(), 'fault-relay-dryrun-'));
  try {
    const file = join(dir, 'change.conf');
    writeFileSync(file, `${kept.map((l) => l.text).join('\n')}\n`, { mode: 0o600 });
    const result = await new Promise<{ code: number | string | null; text: string }>((resolve) => {
      execFile(vtysh, ['--dryrun', '-f', file], { timeout: 10_000 }, (error, stdout, stderr) => {
        const code = error ? ((error as NodeJS.ErrnoException).code ?? (error as { status?: number }).status ?? null) : 0;
        resolve({ code, text: `${stdout}\n${stderr}` });
      });
    });
    if (result.code === 'ENOENT') return undefined;
    if (result.code === 0) return { problems: [] };
    const problems = result.text.split('\n').flatMap((out) => {
      const m = LINE_PROBLEM.exec(out.trim());
      if (!m) return [];
      const line = kept[Number(m[1]) - 1];
      return line ? [`line ${line.index + 1} "${line.text.trim()}": FRR's parser says ${m[2]!.replace(/\[\d+\]:.*$/, '').trim()}`] : [];
    });
    // A failure that names no line (vtysh itself could not run): no verdict on the lines.
    return problems.length ? { problems } : undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
