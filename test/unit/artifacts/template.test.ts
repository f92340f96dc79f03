import { describe, expect, it } from 'vitest';
import { renderTemplate, TemplateError, templateVariables } from '../../../src/runbooks/template';

describe('RAW templates', () => {
  it('fills variables and escapes for regexes on request', () => {
    expect(renderTemplate('show ip bgp neighbors {{neighbor_ip}}', { neighbor_ip: '10.0.0.2' })).toBe('show ip bgp neighbors 10.0.0.2');
    expect(renderTemplate('^ neighbor {{ip|re}} shutdown$', { ip: '10.0.0.2' })).toBe('^ neighbor 10\\.0\\.0\\.2 shutdown$');
  });

  it('renders a section only when the variable is set, an inverted one only when it is not', () => {
    const t = '{{#vrf}}show bgp vpnv4 unicast vrf {{vrf}} summary{{/vrf}}{{^vrf}}show ip bgp summary{{/vrf}}';
    expect(renderTemplate(t, { vrf: 'CUST-A' })).toBe('show bgp vpnv4 unicast vrf CUST-A summary');
    expect(renderTemplate(t, { vrf: '' })).toBe('show ip bgp summary');
    expect(renderTemplate(t, {})).toBe('show ip bgp summary');
  });

  it('refuses to render a command with a hole in it', () => {
    expect(() => renderTemplate('router bgp {{local_as}}', {})).toThrow(/local_as/);
  });

  it('reports syntax errors and lists the variables a template reads', () => {
    expect(() => templateVariables('{{#vrf}}x')).toThrow(TemplateError);
    expect(() => templateVariables('{{ip|upper}}')).toThrow(/unknown filter/);
    expect(() => templateVariables('{{ bad tag }}')).toThrow(TemplateError);
    expect(templateVariables('{{#vrf}}{{vrf}} {{ip|re}}{{/vrf}}').sort()).toEqual(['ip', 'vrf']);
  });
});
