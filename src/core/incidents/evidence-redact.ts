/**
 * Secrets a router prints in its own configuration (a `show running-config` in a RAW step, a BGP
 * neighbor's password, an SNMP community). The relay's scrubber only knows the relay's own secrets;
 * these are the device's, so they are recognised by the keyword that precedes them. Hashed and
 * encrypted forms (`secret 5 $1$…`, `password 7 0822…`, Junos `$9$…`) are taken out too: they can be
 * cracked or replayed.
 */
export const DEVICE_SECRET_REDACTED = '[redacted]';

// Each pattern keeps the keyword (and an encryption-type digit) and replaces only the value.
const PATTERNS: RegExp[] = [
  // IOS/FRR: password [0|7] X, secret [0|5|8|9] X, key-string [7] X, authentication-key X, pre-shared-key X.
  /\b((?:password|secret|key-string|authentication-key|encrypted-password|pre-shared-key|auth-password|priv-password)\s+(?:\d\s+)?)("[^"]*"|\S+)/gi,
  // OSPF message-digest-key 1 md5 [7] X; IS-IS/BGP `md5 X`.
  /\b(md5\s+(?:\d\s+)?)("[^"]*"|\S+)/gi,
  // snmp-server community X; tacacs-server / radius-server key [7] X; `key 7 X` in key chains.
  /\b((?:community|(?:tacacs|radius)-server\s+(?:host\s+\S+\s+)?key|key\s+[07])\s+(?:\d\s+)?)("[^"]*"|\S+)/gi,
  // NETCONF / XML replies: <password>…</password>, <secret>…</secret>, <key>…</key> inside auth blocks.
  /(<(?:[\w-]+:)?(?:password|secret|auth-key|authentication-key|pre-shared-key|community-name)\b[^>]*>)([^<]*)(?=<\/)/gi,
];

/** The text with device secrets replaced, and how many were. */
export function redactDeviceSecrets(text: string): { text: string; redactions: number } {
  let redactions = 0;
  let out = text;
  for (const pattern of PATTERNS) {
    out = out.replace(pattern, (whole, keep: string, value: string) => {
      if (value === DEVICE_SECRET_REDACTED || value === `"${DEVICE_SECRET_REDACTED}"`) return whole;
      redactions++;
      return `${keep}${DEVICE_SECRET_REDACTED}`;
    });
  }
  return { text: out, redactions };
}

/** Known secret values (the relay's scrubber) first, then the device's own by keyword. */
export function redactText(text: string, scrub: (s: string) => string): { text: string; redactions: number } {
  const scrubbed = scrub(text);
  const known = scrubbed === text ? 0 : 1;
  const device = redactDeviceSecrets(scrubbed);
  return { text: device.text, redactions: device.redactions + known };
}

/** Every string inside a JSON value redacted (an approval preview has no fixed shape yet). */
export function redactDeep(value: unknown, scrub: (s: string) => string): unknown {
  if (typeof value === 'string') return redactText(value, scrub).text;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, scrub));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, scrub)]));
  return value;
}
