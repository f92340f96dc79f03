import { describe, expect, it } from 'vitest';
import { InventoryError, parseInventory } from '../../../src/adapters/devices/inventory';
import { approvedFragment } from '../../../src/adapters/devices/netconf/fragment';
import { Deframer, frame, FramingError } from '../../../src/adapters/devices/netconf/framing';
import { missingFrom } from '../../../src/adapters/devices/netconf/verify';
import { canonical, parseXml, serialize, XmlError } from '../../../src/runbooks/xml';

const NS = 'urn:example:bgp';

describe('NETCONF framing', () => {
  it('splits end-of-message framing however the bytes arrive', () => {
    const d = new Deframer();
    const wire = Buffer.concat([frame('<a/>', '1.0'), frame('<b/>', '1.0')]);
    const got = [...wire].flatMap((byte) => d.push(Buffer.from([byte])));
    expect(got).toEqual(['<a/>', '<b/>']);
  });

  it('reads chunked framing by bytes, not characters, across chunks and reads', () => {
    const d = new Deframer();
    d.useChunked();
    const text = '<x>é→𝄞</x>';
    const body = Buffer.from(text);
    // Two chunks, split inside a multi-byte character, fed one byte at a time.
    const wire = Buffer.concat([Buffer.from(`\n#5\n`), body.subarray(0, 5), Buffer.from(`\n#${body.length - 5}\n`), body.subarray(5), Buffer.from('\n##\n')]);
    const got = [...wire].flatMap((byte) => d.push(Buffer.from([byte])));
    expect(got).toEqual([text]);
    expect(new Deframer().framing).toBe('1.0');
  });

  it('refuses a broken chunk header and a 1.0 message holding the end marker', () => {
    const d = new Deframer();
    d.useChunked();
    expect(() => d.push(Buffer.from('\n#0\n'))).toThrow(FramingError);
    const e = new Deframer();
    e.useChunked();
    expect(() => e.push(Buffer.from('<rpc/>'))).toThrow(/bad chunk header/);
    expect(() => frame('<a>]]>]]></a>', '1.0')).toThrow(FramingError);
    expect(frame('<a/>', '1.1').toString()).toBe('\n#4\n<a/>\n##\n');
  });
});

describe('NETCONF XML', () => {
  it('resolves namespaces and entities, and compares up to prefixes and formatting', () => {
    const a = parseXml(`<p:data xmlns:p="${NS}"><p:n a="1">x &amp; &#x41;</p:n></p:data>`);
    const b = parseXml(`<data xmlns="${NS}">\n  <n a="1">x &amp; A</n>\n</data>`);
    expect(a.ns).toBe(NS);
    expect(canonical(a)).toBe(canonical(b));
    expect(canonical(a)).not.toBe(canonical(parseXml(`<data xmlns="${NS}"><n a="2">x &amp; A</n></data>`)));
  });

  it('refuses DOCTYPE, undeclared prefixes and broken documents', () => {
    expect(() => parseXml('<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>')).toThrow(XmlError);
    expect(() => parseXml('<p:a/>')).toThrow(/prefix "p" is not declared/);
    expect(() => parseXml('<a><b></a>')).toThrow(XmlError);
    expect(() => parseXml('<a>&bogus;</a>')).toThrow(/bad entity/);
    expect(() => parseXml('<a/><b/>')).toThrow(/second root/);
  });

  it('serializes an element standalone, keeping prefixes its leaf text uses', () => {
    const doc = parseXml(`<r xmlns="urn:r" xmlns:t="urn:t"><data><if><type>t:eth</type></if></data></r>`);
    const data = doc.children.find((c) => typeof c !== 'string') as ReturnType<typeof parseXml>;
    const again = parseXml(serialize(data));
    expect(again.scope.get('t')).toBe('urn:t');
    expect(canonical(again)).toBe(canonical(data));
  });
});

describe('the approved <config> fragment', () => {
  const lines = ['<config>', `  <bgp xmlns="${NS}">`, '    <neighbor><address>10.0.0.2</address><shutdown>false</shutdown></neighbor>', '  </bgp>', '</config>'];

  it('is the lines joined, unchanged', () => {
    const f = approvedFragment('PE1', lines);
    expect(f.text).toBe(lines.join('\n'));
    expect(f.config.local).toBe('config');
  });

  it('refuses what would not be one namespaced <config>, before anything is sent', () => {
    const refused = (l: string[]) => {
      try {
        approvedFragment('PE1', l);
      } catch (e) {
        expect(e).toMatchObject({ kind: 'not_in_grammar', reached: false });
        return (e as Error).message;
      }
      throw new Error('expected a refusal');
    };
    expect(refused(['<bgp xmlns="urn:x"/>'])).toMatch(/root element is <bgp>/);
    expect(refused(['<config><bgp/></config>'])).toMatch(/no namespace of its own/);
    expect(refused(['<config>', '<a xmlns="urn:x"/>]]>]]><rpc/>', '</config>'])).toMatch(/end-of-message marker/);
    expect(refused(['<?xml version="1.0"?><config><a xmlns="urn:x"/></config>'])).toMatch(/processing instruction/);
    expect(refused(['<config><a xmlns="urn:x">\u0007</a></config>'])).toMatch(/control character/);
    expect(refused(['<config><a xmlns="urn:x"></config>'])).toMatch(/not well-formed/);
    expect(refused(['<config/>'])).toMatch(/empty/);
  });
});

describe('read-back comparison', () => {
  const fragment = (inner: string) => parseXml(`<config xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0"><bgp xmlns="${NS}">${inner}</bgp></config>`);
  const running = parseXml(
    `<data xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><bgp xmlns="${NS}"><as>65001</as>` +
      '<neighbor><address>10.0.0.2</address><remote-as>65002</remote-as><shutdown>false</shutdown></neighbor>' +
      '<neighbor><address>10.0.0.3</address><remote-as>65003</remote-as></neighbor></bgp></data>',
  );

  it('finds the approved values in running, whatever else it holds', () => {
    expect(missingFrom(fragment('<neighbor><address>10.0.0.2</address><shutdown>false</shutdown></neighbor>'), running)).toEqual([]);
  });

  it('names what is missing or different, by list entry', () => {
    expect(missingFrom(fragment('<neighbor><address>10.0.0.2</address><shutdown>true</shutdown></neighbor>'), running)).toEqual([
      '/bgp/neighbor[address="10.0.0.2"]/shutdown is "false", the change sets "true"',
    ]);
    expect(missingFrom(fragment('<neighbor><address>10.0.0.9</address><remote-as>1</remote-as></neighbor>'), running)[0]).toMatch(/address is "10.0.0.2", the change sets "10.0.0.9"|missing/);
  });

  it('holds a delete to absence', () => {
    expect(missingFrom(fragment('<neighbor nc:operation="delete"><address>10.0.0.3</address></neighbor>'), running)).toEqual([
      '/bgp/neighbor[address="10.0.0.3"] is still there, the change removes it',
    ]);
    expect(missingFrom(fragment('<neighbor nc:operation="delete"><address>10.0.0.4</address></neighbor>'), running)).toEqual([]);
  });
});

describe('a netconf device in the inventory', () => {
  const inventory = (extra: string) => `devices:\n  - name: PE1\n    host: 192.0.2.21\n    platform: netconf\n    username: netops\n${extra}`;

  it('defaults to port 830 and the RFC\'s confirm-timeout', () => {
    const inv = parseInventory(inventory('    credential: {key_file: keys/pe1}\n'), '/etc/fr/devices.yaml');
    expect(inv.devices.get('PE1')).toMatchObject({ platform: 'netconf', port: 830, confirm_timeout_s: 600, credential: { key_file: '/etc/fr/keys/pe1' } });
  });

  it('refuses a secret in the file, and says which platforms exist', () => {
    expect(() => parseInventory(inventory('    password: hunter2\n    credential: {agent: true}\n'), '/x.yaml')).toThrow(/no secret in the inventory/);
    expect(() => parseInventory(inventory('    credential: {agent: true}\n    confirm_timeout_s: 0\n'), '/x.yaml')).toThrow(InventoryError);
    const junos = inventory('    credential: {agent: true}\n').replace('netconf', 'junos');
    expect(() => parseInventory(junos, '/x.yaml')).toThrow('devices[0].platform: one of ios, iosxe, nxos, eos, frr, netconf');
    const cli = `devices:\n  - {name: R1, host: h, platform: frr, username: u, credential: {agent: true}, confirm_timeout_s: 5}\n`;
    // A CLI device has no confirm-timeout: an unknown field there is refused as any other.
    expect(() => parseInventory(cli, '/x.yaml')).toThrow('devices[0]: a device: {name, host, port?, platform, username, credential}');
  });
});
