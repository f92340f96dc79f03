import { grammarProblem, PLATFORM } from '../devices/platforms';
import { renderBothWays, templateVariablesSafe } from './render-variants';
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
    if (effective.kind !== 'validate' && effective.kind !== 'collect' && effective.kind !== 'revalidate') continue;
    // Point at the command the platform actually gets: its variant's, or the step's own.
    const ownAction = 'variants' in s && (s.variants as Record<string, { action?: unknown } | undefined> | undefined)?.[platform]?.action;
    const where: PathSegment[] = ownAction ? ['steps', i, 'variants', platform, 'action', 'command'] : ['steps', i, 'action', 'command'];
    const names = templateVariablesSafe(effective.action.command);
    for (const rendered of renderBothWays(names, effective.action.command)) {
      const problem = grammarProblem(PLATFORM[platform], rendered.trim());
      if (problem) {
        sink.at(src, where, `on ${platform}, "${rendered.trim()}" is not in the platform's grammar: ${problem}; add a variant for ${platform}`, `add variants: { ${platform}: { action: { type: exec_cli, command: … } } } with the command as ${platform} spells it`);
        break;
      }
    }
  }
}
