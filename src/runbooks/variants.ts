import { PLATFORM_INPUT, RAW_PLATFORMS, type RawPlatform, type RawStep } from './schema-raw';

const isPlatform = (p: string | undefined): p is RawPlatform => (RAW_PLATFORMS as readonly string[]).includes(p ?? '');

/**
 * The step as it runs on this platform: the variant's fields over the step's own. The one place
 * variants are applied, so the engine, the scripted agent, strict mode and the validator agree.
 */
export function stepForPlatform<S extends RawStep>(step: S, platform: string | undefined): S {
  if (!isPlatform(platform) || !('variants' in step) || !step.variants) return step;
  const variant = (step.variants as Partial<Record<RawPlatform, object>>)[platform];
  return variant ? { ...step, ...variant } : step;
}

export const platformOf = (vars: Readonly<Record<string, string | undefined>>) => vars[PLATFORM_INPUT];

/** The platforms a step names variants for. */
export function variantPlatforms(step: RawStep): RawPlatform[] {
  return 'variants' in step && step.variants ? (Object.keys(step.variants) as RawPlatform[]) : [];
}
