/** The bus's events are defined once, in src/events/relay-events.ts; their names and shapes come from there. */
export type { RelayEvents } from '../events/relay-events';
