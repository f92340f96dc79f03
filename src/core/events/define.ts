import type { z } from 'zod';

/** How an entry reads at a glance in the tray and /ui: its colour and label. */
export type EntryKind = 'alert' | 'state' | 'runtime' | 'agent' | 'tool' | 'message' | 'notify' | 'approval' | 'outcome' | 'device' | 'warning' | 'error';

/** Fields every timeline entry has, whatever its type. */
export interface EntryHead<N extends string = string> {
  at: string;
  type: N;
  message: string;
}

/** One kind of timeline entry: its name on the timeline, its data, and how it reads. */
export interface EntryDefinition<N extends string = string, S extends z.ZodType<Record<string, unknown>> = z.ZodType<Record<string, unknown>>> {
  readonly name: N;
  readonly schema: S;
  readonly kind: EntryKind;
}

/** The data an entry of `D` carries besides its head. */
export type EntryData<D extends EntryDefinition> = z.input<D['schema']>;

/** `record`'s data argument for `D`: optional when the definition requires no field. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type RecordData<D extends EntryDefinition> = {} extends EntryData<D> ? [data?: EntryData<D>] : [data: EntryData<D>];

/** An entry of `D` as the timeline holds it. */
export type EntryOf<D extends EntryDefinition> = EntryHead<D['name']> & z.output<D['schema']>;

/** Defines a timeline entry: every writer and reader takes this, never its name as a string. */
export function define<N extends string, S extends z.ZodType<Record<string, unknown>>>(name: N, schema: S, kind: EntryKind): EntryDefinition<N, S> {
  return { name, schema, kind };
}

/** One kind of event on the relay's bus; `streamed` ones also reach /events, the tray's window and /ui. */
export interface EventDefinition<N extends string = string, S extends z.ZodType = z.ZodType, T extends boolean = boolean> {
  readonly name: N;
  readonly schema: S;
  readonly streamed: T;
}

export function defineEvent<N extends string, S extends z.ZodType, T extends boolean>(name: N, schema: S, opts: { streamed: T }): EventDefinition<N, S, T> {
  return { name, schema, streamed: opts.streamed };
}

/** Whether `entry` is one of `def`'s, typed as such (its data as written; entries stored by older builds may lack a field). */
export function isEntry<D extends EntryDefinition>(entry: EntryHead & Record<string, unknown>, def: D): entry is EntryHead<D['name']> & Record<string, unknown> & Partial<z.output<D['schema']>> {
  return entry.type === def.name;
}
