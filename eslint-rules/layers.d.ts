import type { Rule } from 'eslint';
export function layerOf(rel: string): string | undefined;
export const ALLOWED: Record<string, string[]>;
export const layersRule: Rule.RuleModule;
