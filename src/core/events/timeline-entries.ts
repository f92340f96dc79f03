import type { EntryDefinition, EntryKind, EntryOf } from './define';
import { approvalEntries } from './entries/approval';
import { deviceEntries } from './entries/device';
import { incidentEntries } from './entries/incident';
import { outsideEntries } from './entries/outside';
import { runtimeEntries } from './entries/runtime';

export { define, isEntry, type EntryDefinition, type EntryKind, type EntryOf } from './define';

/**
 * Every timeline entry the relay writes, each defined once: writers pass the definition to
 * `incidents.record`, readers compare with it (`isEntry`), and the tray and /ui read its kind.
 * Shared with the renderer: nothing here runs only in Node.
 */
export const entries = {
  ...incidentEntries,
  ...runtimeEntries,
  ...approvalEntries,
  ...deviceEntries,
  ...outsideEntries,
};

type Defined = (typeof entries)[keyof typeof entries];

/** A timeline entry of a type this build writes, discriminated by `type`. */
export type KnownTimelineEntry = { [K in keyof typeof entries]: EntryOf<(typeof entries)[K]> }[keyof typeof entries];
export type EntryName = Defined['name'];

const byName: ReadonlyMap<string, EntryDefinition> = new Map(Object.values(entries).map((d): [string, EntryDefinition] => [d.name, d]));

/** The definition of an entry type, if this build writes it (stored entries may be older). */
export const definitionOf = (type: string): EntryDefinition | undefined => byName.get(type);

/** How an entry of this type reads at a glance; a type this build does not define reads as the runtime's. */
export const kindOfType = (type: string): EntryKind => byName.get(type)?.kind ?? 'runtime';
