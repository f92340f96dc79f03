import { z } from 'zod';

/**
 * The closed set of value formats a runbook variable can declare, defined once. A value from an
 * alert is rendered into a command the relay runs only after it passes its variable's format, at
 * intake and again when the command is rendered; `text` is data for people and the agent, and is
 * never rendered into a command (the artifact validator refuses a RAW that tries).
 */
const IPV4 = z.ipv4();
const IPV6 = z.ipv6();
export const FORMAT_SCHEMAS = {
  ipv4: IPV4,
  ipv6: IPV6,
  ip: z.union([IPV4, IPV6]),
  hostname: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$/),
  vrf: z.string().regex(/^[A-Za-z0-9_.:-]{1,32}$/),
  interface: z.string().regex(/^[A-Za-z][A-Za-z-]*\d+(?:[/.:]\d+)*$/),
  /** asplain (up to 4294967295) or asdot. */
  asn: z.string().regex(/^(?:\d{1,10}|\d{1,5}\.\d{1,5})$/),
  integer: z.string().regex(/^\d{1,10}$/),
  text: z.string(),
} as const satisfies Record<string, z.ZodType<string>>;

export const variableFormatSchema = z.enum(Object.keys(FORMAT_SCHEMAS) as [keyof typeof FORMAT_SCHEMAS, ...(keyof typeof FORMAT_SCHEMAS)[]]);
export type VariableFormat = z.infer<typeof variableFormatSchema>;

/** What each format is, in the words an error shows. */
export const FORMAT_WORDS: Record<VariableFormat, string> = {
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  ip: 'an IPv4 or IPv6 address',
  hostname: 'a hostname (letters, digits, "." and "-")',
  vrf: 'a VRF name (1 to 32 letters, digits, "_", ".", ":" or "-")',
  interface: 'an interface name (e.g. GigabitEthernet0/1, eth0)',
  asn: 'an AS number (e.g. 65001 or 1.10)',
  integer: 'a whole number',
  text: 'text',
};

/** Formats whose values may be rendered into a command; `text` may not. */
export const commandSafe = (format: VariableFormat | undefined): format is Exclude<VariableFormat, 'text'> => format !== undefined && format !== 'text';

export function checkFormat(format: VariableFormat, value: string): boolean {
  return FORMAT_SCHEMAS[format].safeParse(value).success;
}

/** A value that fails its declared format, named for the person who reads why. */
export class FormatError extends Error {
  override readonly name = 'FormatError';
  constructor(
    readonly field: string,
    readonly format: VariableFormat | undefined,
    readonly value: string,
  ) {
    super(
      format === undefined
        ? `${field} has no declared format: it is never rendered into a command`
        : format === 'text'
          ? `${field} is free text: it is never rendered into a command`
          : `${field} ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)} is not ${FORMAT_WORDS[format]}`,
    );
  }
}
