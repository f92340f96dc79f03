/** Wall-clock fields of an instant in an IANA zone. */
function fieldsIn(at: number, zone: string) {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(at));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { y: get('year'), mo: get('month'), d: get('day'), h: get('hour'), mi: get('minute'), s: get('second') };
}

/** How far the zone is ahead of UTC at `at`, in ms. */
function offsetAt(at: number, zone: string): number {
  const f = fieldsIn(at, zone);
  return Date.UTC(f.y, f.mo - 1, f.d, f.h, f.mi, f.s) - Math.floor(at / 1000) * 1000;
}

/**
 * The instant of a policy time: with an offset as written, without one in the policy's zone
 * (`2026-12-18T00:00` in Europe/Amsterdam is 2026-12-17T23:00Z). A local time a DST change skips
 * is read with the offset before the change.
 */
export function instantOf(text: string, zone: string): number {
  if (/(Z|[+-]\d{2}:\d{2})$/.test(text)) return Date.parse(text);
  const [date, time] = text.split('T') as [string, string];
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const [h, mi, s = 0] = time.split(':').map(Number) as [number, number, number?];
  const guess = Date.UTC(y, mo - 1, d, h, mi, s);
  const first = guess - offsetAt(guess, zone);
  return guess - offsetAt(first, zone);
}

/** Minutes since midnight of an instant, in the zone. */
export function minutesOfDay(at: number, zone: string): number {
  const f = fieldsIn(at, zone);
  return f.h * 60 + f.mi;
}

/** Whether `at` falls in "HH:MM-HH:MM" in the zone; a window ending before it starts crosses midnight. */
export function withinHours(hours: string, at: number, zone: string): boolean {
  const [from, to] = hours.split('-').map((t) => {
    const [h, m] = t.split(':').map(Number) as [number, number];
    return h * 60 + m;
  }) as [number, number];
  const now = minutesOfDay(at, zone);
  return from <= to ? now >= from && now < to : now >= from || now < to;
}
