import { renderTemplate, templateVariables } from './template';

/**
 * Renders with every variable set, then with every variable empty, so validation checks both
 * branches of each `{{#…}}` section.
 */
export function renderBothWays(names: string[], text: string): string[] {
  return [Object.fromEntries(names.map((n) => [n, 'x'])), Object.fromEntries(names.map((n) => [n, '']))].map((v) => renderTemplate(text, v));
}

/** The template's variables, or none when it does not parse (that is reported elsewhere). */
export function templateVariablesSafe(text: string): string[] {
  try {
    return templateVariables(text);
  } catch {
    return [];
  }
}

/** Renders with every variable set (or empty); the template as written when it does not parse. */
export function safeRender(text: string, names: string[], set: boolean): string {
  try {
    return renderTemplate(text, Object.fromEntries(names.map((n) => [n, set ? 'x' : ''])));
  } catch {
    return text;
  }
}
