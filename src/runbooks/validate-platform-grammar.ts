import { DIALECT_GRAMMAR, grammarProblem } from './dialect-grammar';
import { checkFragment, FragmentRefused } from './netconf-fragment';
import { renderBothWays, safeRender, templateVariablesSafe } from './render-variants';
import type { RawStep, RepairActionWorkflow } from './schema-raw';
import type { IssueSink } from './validate-issues';
import { stepForPlatform, variantPlatforms } from './variants';
import type { PathSegment, YamlSource } from './yaml-source';

/**
 * Step `i` against the workflow's platforms: its variants must name one of them, and the show
 * command each platform actually gets must be in that platform's grammar.
 */
export function checkStepPlatforms(raw: RepairActionWorkflow, s: RawStep, i: number, src: YamlSource, sink: IssueSink): void {
  for (const p of variantPlatforms(s)) {
    if (!raw.platforms.includes(p)) sink.at(src, ['steps', i, 'variants', p], `variant for ${p}, which is not in the workflow's platforms (${raw.platforms.join(', ')})`, `add ${p} to platforms: or remove the variant`);
  }
  for (const platform of raw.platforms) {
    const effective = stepForPlatform(s, platform);
    if (effective.kind === 'repair' && platform === 'netconf') checkNetconfRepair(s, effective.action.commands, i, src, sink);
    if (effective.kind !== 'validate' && effective.kind !== 'collect' && effective.kind !== 'revalidate') continue;
    // Point at the command the platform actually gets: its variant's, or the step's own.
    const ownAction = 'variants' in s && (s.variants as Record<string, { action?: unknown } | undefined> | undefined)?.[platform]?.action;
    const where: PathSegment[] = ownAction ? ['steps', i, 'variants', platform, 'action', 'command'] : ['steps', i, 'action', 'command'];
    const names = templateVariablesSafe(effective.action.command);
    for (const rendered of renderBothWays(names, effective.action.command)) {
      const problem = grammarProblem(DIALECT_GRAMMAR[platform], rendered.trim());
      if (problem) {
        sink.at(src, where, `on ${platform}, "${rendered.trim()}" is not in the platform's grammar: ${problem}; add a variant for ${platform}`, `add variants: { ${platform}: { action: { type: exec_cli, command: … } } } with the command as ${platform} spells it`);
        break;
      }
    }
  }
}

/**
 * On NETCONF a repair's lines are not CLI but one XML `<config>` element, sent as approved: the
 * device service's own check (netconf-fragment.ts, which runs before any connection) applied here,
 * with every input set and with every input empty, so a RAW that could only be refused fails now.
 */
function checkNetconfRepair(s: RawStep, commands: string[], i: number, src: YamlSource, sink: IssueSink): void {
  const ownAction = 'variants' in s && (s.variants as Record<string, { action?: unknown } | undefined> | undefined)?.netconf?.action;
  const where: PathSegment[] = ownAction ? ['steps', i, 'variants', 'netconf', 'action', 'commands'] : ['steps', i, 'action', 'commands'];
  const names = commands.flatMap((c) => templateVariablesSafe(c));
  for (const set of [true, false]) {
    // As the engine sends them: rendered, trimmed, empty lines dropped.
    const lines = commands.map((c) => safeRender(c, names, set).trim()).filter((c) => c !== '');
    try {
      checkFragment('netconf', lines);
    } catch (error) {
      if (!(error instanceof FragmentRefused)) throw error;
      sink.at(src, where, `on netconf, the repair's lines are not what a NETCONF device takes: ${error.message.replace(/^netconf: /, '')}`,
        `add variants: { netconf: { action: { type: config_cli, commands: ['<config>', '  <module-root xmlns="its YANG namespace">', …, '</config>'] } } }: one XML <config> element, a line per list item`);
      return;
    }
  }
}
