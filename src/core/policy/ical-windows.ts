import ICAL from 'ical.js';
import type { ChangeWindow } from './change-windows';
import { instantOf } from './zoned-time';
import { errorText } from '../error-body';

/** What is wrong with one event of a calendar, at the line its VEVENT begins. */
export interface CalendarProblem {
  line: number;
  message: string;
  fix: string;
}

/** Recurrences more frequent than daily are not maintenance windows, and would make every check slow. */
const TOO_FREQUENT = new Set(['SECONDLY', 'MINUTELY', 'HOURLY']);
/** Enough occurrences to walk a daily window for over a century. */
const MAX_STEPS = 50_000;

const isZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

const pad = (n: number) => String(n).padStart(2, '0');

/** The TZID a time was written with: ical.js keeps it, untyped, when the calendar has no VTIMEZONE for it. */
const tzidOf = (time: ICAL.Time) => (time as unknown as { timezone?: string }).timezone;

/**
 * The instant of a calendar time. TZID names an IANA zone (read with the same rules as the policy's
 * own times, so DST is handled once); a UTC time is UTC; a floating time is in the policy's zone.
 */
const zoneOf = (time: ICAL.Time, policyZone: string) => (time.zone?.tzid === 'UTC' ? 'UTC' : tzidOf(time) || policyZone);

/** Occurrences the iterator makes do not keep their TZID: each is read in the zone its DTSTART/DTEND was written in. */
function instant(time: ICAL.Time, zone: string): number {
  return instantOf(`${time.year}-${pad(time.month)}-${pad(time.day)}T${pad(time.hour)}:${pad(time.minute)}:${pad(time.second)}`, zone);
}

/** The line each VEVENT begins on, in order, so a problem points at its event. */
function eventLines(text: string): number[] {
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((l, i) => {
    if (/^BEGIN:VEVENT\s*$/i.test(l)) lines.push(i + 1);
  });
  return lines;
}

/** Who decides inside the window: X-OWNER, else the organizer's name, else the organizer's address. */
function ownerOf(vevent: ICAL.Component): string | undefined {
  const own = vevent.getFirstPropertyValue('x-owner');
  if (typeof own === 'string' && own.trim()) return own.trim();
  const organizer = vevent.getFirstProperty('organizer');
  const cn = organizer?.getParameter('cn');
  if (typeof cn === 'string' && cn.trim()) return cn.trim();
  const address = organizer?.getFirstValue();
  return typeof address === 'string' && address ? address.replace(/^mailto:/i, '') : undefined;
}

/** `X-MATCH-NEIGHBOR_IP:10.0.0.6` names the alert field neighbor_ip; every one must match. */
function matchOf(vevent: ICAL.Component): Record<string, string> {
  const match: Record<string, string> = {};
  for (const p of vevent.getAllProperties()) {
    const m = /^x-match-(.+)$/i.exec(p.name);
    const value = p.getFirstValue();
    if (m && typeof value === 'string') match[m[1]!.toLowerCase()] = value;
  }
  return match;
}

function problemsOf(vevent: ICAL.Component, event: ICAL.Event, policyZone: string): string[] {
  const found: string[] = [];
  if (!event.uid) found.push('the event has no UID');
  const device = vevent.getFirstPropertyValue('x-device');
  if (typeof device !== 'string' || !device) found.push('the event names no device (X-DEVICE:R1)');
  if (!ownerOf(vevent)) found.push('the event names no owner (X-OWNER or ORGANIZER;CN=…)');
  if (!vevent.hasProperty('dtstart')) found.push('the event has no DTSTART');
  else if (!vevent.hasProperty('dtend') && !vevent.hasProperty('duration')) found.push('the event has no DTEND or DURATION, so its window never closes');
  const zone = event.startDate ? tzidOf(event.startDate) : undefined;
  if (zone && !isZone(zone)) found.push(`TZID ${zone} is not an IANA time zone name (such as Europe/Amsterdam)`);
  const rule = vevent.getFirstPropertyValue('rrule') as ICAL.Recur | null;
  if (rule && TOO_FREQUENT.has(rule.freq)) found.push(`RRULE FREQ=${rule.freq} recurs more often than daily`);
  if (!found.length && instant(event.endDate, zoneOf(event.endDate, policyZone)) <= instant(event.startDate, zoneOf(event.startDate, policyZone))) found.push('the event ends before it starts');
  return found;
}

function windowOf(vevent: ICAL.Component, event: ICAL.Event, policyZone: string): ChangeWindow {
  const summary = event.summary?.trim();
  const cancelled = String(vevent.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED';
  const startZone = zoneOf(event.startDate, policyZone);
  const endZone = zoneOf(event.endDate, policyZone);
  return {
    id: event.uid,
    label: `maintenance window ${event.uid}`,
    ...(summary ? { summary } : {}),
    device: vevent.getFirstPropertyValue('x-device') as string,
    match: matchOf(vevent),
    owner: ownerOf(vevent)!,
    openAt(at) {
      if (cancelled) return undefined;
      const it = event.iterator();
      for (let step = 0, next = it.next(); next && step < MAX_STEPS; step++, next = it.next()) {
        const occurrence = event.getOccurrenceDetails(next);
        const from = instant(occurrence.startDate, startZone);
        if (from > at) return undefined;
        const to = instant(occurrence.endDate, endZone);
        if (at < to) return { from, to };
      }
      return undefined;
    },
  };
}

/** Reads the recurring windows of an iCalendar file: every event a window, every problem at its line. */
export function parseCalendar(text: string, policyZone: string): { windows: ChangeWindow[]; problems: CalendarProblem[] } {
  let root: ICAL.Component;
  try {
    root = new ICAL.Component(ICAL.parse(text));
  } catch (error) {
    return { windows: [], problems: [{ line: 1, message: `not an iCalendar file: ${errorText(error)}`, fix: 'export the calendar as .ics (BEGIN:VCALENDAR … END:VCALENDAR)' }] };
  }
  const lines = eventLines(text);
  const windows: ChangeWindow[] = [];
  const problems: CalendarProblem[] = [];
  root.getAllSubcomponents('vevent').forEach((vevent, i) => {
    const event = new ICAL.Event(vevent);
    const found = problemsOf(vevent, event, policyZone);
    if (found.length) problems.push(...found.map((message) => ({ line: lines[i] ?? 1, message: `${event.uid || `event ${i + 1}`}: ${message}`, fix: 'give every event UID, DTSTART, DTEND, X-DEVICE and an owner; see the policy format' })));
    else windows.push(windowOf(vevent, event, policyZone));
  });
  return { windows, problems };
}
