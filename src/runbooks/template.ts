/**
 * The template language of RAW commands and expectations, a small subset of Mustache:
 *   {{name}}            the variable's value
 *   {{name|re}}         the value escaped for use inside a regular expression
 *   {{#name}}…{{/name}} the inner text only when `name` is set and non-empty
 *   {{^name}}…{{/name}} the inner text only when `name` is unset or empty
 * Nothing else: artifacts must stay readable by the engineers who sign them off.
 */
export type TemplateVars = Readonly<Record<string, string | undefined>>;

export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

const FILTERS = {
  re: (v: string) => v.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'),
} as const;
type FilterName = keyof typeof FILTERS;

type Node =
  | { type: 'text'; text: string }
  | { type: 'var'; name: string; filter?: FilterName }
  | { type: 'section'; name: string; inverted: boolean; children: Node[] };

const TAG = /\{\{\s*([#^/]?)\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\|\s*([A-Za-z]+)\s*)?\}\}/g;

function parse(template: string): Node[] {
  const root: Node[] = [];
  const stack: { name: string; children: Node[] }[] = [{ name: '', children: root }];
  let last = 0;
  for (const m of template.matchAll(TAG)) {
    const [whole, sigil, name = '', filter] = m;
    const top = stack[stack.length - 1]!;
    if (m.index > last) top.children.push({ type: 'text', text: template.slice(last, m.index) });
    last = m.index + whole.length;
    if (sigil === '#' || sigil === '^') {
      const section: Node = { type: 'section', name, inverted: sigil === '^', children: [] };
      top.children.push(section);
      stack.push({ name, children: section.children });
    } else if (sigil === '/') {
      if (stack.length === 1 || top.name !== name) throw new TemplateError(`unexpected {{/${name}}} in "${template}"`);
      stack.pop();
    } else {
      if (filter !== undefined && !(filter in FILTERS)) throw new TemplateError(`unknown filter "|${filter}" in "${template}"`);
      top.children.push({ type: 'var', name, ...(filter ? { filter: filter as FilterName } : {}) });
    }
  }
  if (stack.length > 1) throw new TemplateError(`{{#${stack[stack.length - 1]!.name}}} is never closed in "${template}"`);
  if (last < template.length) root.push({ type: 'text', text: template.slice(last) });
  if (/\{\{|\}\}/.test(root.filter((n) => n.type === 'text').map((n) => (n as { text: string }).text).join(''))) {
    throw new TemplateError(`malformed {{…}} tag in "${template}"`);
  }
  return root;
}

/** Every variable a template reads, including section names. Throws TemplateError on bad syntax. */
export function templateVariables(template: string): string[] {
  const names = new Set<string>();
  const walk = (nodes: Node[]) => {
    for (const n of nodes) {
      if (n.type === 'var') names.add(n.name);
      if (n.type === 'section') {
        names.add(n.name);
        walk(n.children);
      }
    }
  };
  walk(parse(template));
  return [...names];
}

/** The variables a template renders as values (`{{name}}`, `{{name|re}}`), not those only used as sections. */
export function renderedVariables(template: string): string[] {
  const names = new Set<string>();
  const walk = (nodes: Node[]) => {
    for (const n of nodes) {
      if (n.type === 'var') names.add(n.name);
      if (n.type === 'section') walk(n.children);
    }
  };
  walk(parse(template));
  return [...names];
}

/**
 * Renders a template. A plain variable that is unset is an error: a command must never run with a
 * hole in it. `check` sees every value rendered in as itself (not section names) and throws to refuse it.
 */
export function renderTemplate(template: string, vars: TemplateVars, check?: (name: string, value: string) => void): string {
  const render = (nodes: Node[]): string =>
    nodes
      .map((n) => {
        if (n.type === 'text') return n.text;
        if (n.type === 'section') {
          const set = (vars[n.name] ?? '') !== '';
          return set !== n.inverted ? render(n.children) : '';
        }
        const value = vars[n.name];
        if (value === undefined) throw new TemplateError(`variable "${n.name}" is not set`);
        check?.(n.name, value);
        return n.filter ? FILTERS[n.filter](value) : value;
      })
      .join('');
  return render(parse(template));
}
