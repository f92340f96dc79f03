/** Small formatters that make the lab's output read like IOS-XE. */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

const two = (n: number) => String(n).padStart(2, '0');

/** `Mar  1 09:00:12.345 UTC` as in `service timestamps log datetime msec localtime show-timezone`. */
export function logTimestamp(ms: number): string {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, '0')} UTC`;
}

/** `09:00:12.345 UTC Sat Mar 1 2025` as `show clock` prints it. */
export function clockString(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, '0')} UTC ${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()} ${d.getUTCFullYear()}`;
}

/** BGP's compact age: `00:04:12` under a day, `3d04h` under a week, `2w3d` beyond. */
export function bgpAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(s / 86400);
  if (days >= 7) return `${Math.floor(days / 7)}w${days % 7}d`;
  if (days >= 1) return `${days}d${two(Math.floor((s % 86400) / 3600))}h`;
  return `${two(Math.floor(s / 3600))}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
}

/** `12 weeks, 3 days, 4 hours, 5 minutes` as `show version` prints uptime. */
export function longUptime(ms: number): string {
  let m = Math.floor(ms / 60000);
  const parts: string[] = [];
  const unit = (n: number, name: string) => parts.push(`${n} ${name}${n === 1 ? '' : 's'}`);
  const weeks = Math.floor(m / (7 * 1440));
  m -= weeks * 7 * 1440;
  const days = Math.floor(m / 1440);
  m -= days * 1440;
  const hours = Math.floor(m / 60);
  m -= hours * 60;
  if (weeks) unit(weeks, 'week');
  if (days) unit(days, 'day');
  if (hours) unit(hours, 'hour');
  unit(m, 'minute');
  return parts.join(', ');
}

export function prefixLengthToMask(len: number): string {
  const bits = len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
  return [24, 16, 8, 0].map((shift) => (bits >>> shift) & 0xff).join('.');
}

export function ipToInt(ip: string): number {
  return ip.split('.').reduce((acc, o) => ((acc << 8) | Number(o)) >>> 0, 0);
}

export function inSubnet(ip: string, cidr: string): boolean {
  const [net = '', len = '32'] = cidr.split('/');
  const bits = Number(len);
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return ((ipToInt(ip) & mask) >>> 0) === ((ipToInt(net) & mask) >>> 0);
}

export const INVALID_INPUT = "% Invalid input detected at '^' marker.";

/** The echo IOS prints for a parse error: the line, a caret under the offending column, the message. */
export function invalidInput(line: string, column: number): string {
  return `${line}\n${' '.repeat(Math.max(0, column))}^\n${INVALID_INPUT}`;
}

/** Interface abbreviations as IOS shows them in `show vrf` and syslog short forms. */
export function shortInterfaceName(name: string): string {
  return name.replace(/^GigabitEthernet/, 'Gi').replace(/^TenGigabitEthernet/, 'Te').replace(/^Loopback/, 'Lo');
}
