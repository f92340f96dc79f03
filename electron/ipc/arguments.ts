import { z } from 'zod';
import { DECISIONS } from '../../src/core/incidents/model';
import { directPromptInputSchema } from '../../src/relay/routes/ui-schemas';
import { incidentActionSchema } from '../../src/core/incidents/incident-handling';
import type { ArgsOf, RequestChannel } from './contract';

/** Incident ids end up in file names and log lines: `INC-20261121T100000Z-2` and the like. */
const incidentId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'expected an incident id such as INC-20261121T100000Z');

/**
 * The arguments every request channel accepts, checked before any handler runs: the
 * renderer is the least trusted part of the app. `satisfies` ties each tuple to the
 * Bridge method's own parameters, so a contract change that is not mirrored here fails tsc.
 */
export const ipcArguments = {
  listIncidents: z.tuple([]),
  getIncident: z.tuple([incidentId]),
  health: z.tuple([]),
  sessionLog: z.tuple([incidentId]),
  exportEvidence: z.tuple([incidentId, z.enum(['md', 'json'])]),
  listArtifactGroups: z.tuple([]),
  directPrompt: z.tuple([directPromptInputSchema]),
  copyText: z.tuple([z.string().max(1_000_000)]),
  confirmChange: z.tuple([incidentId, z.string().min(1).max(64)]),
  incidentAction: z.tuple([incidentId, incidentActionSchema]),
  clearDevice: z.tuple([z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,252}$/, 'expected a device name such as R1')]),
  decide: z.tuple([incidentId, z.string().min(1).max(64), z.enum(DECISIONS), z.string().max(500).optional()]),
  getSettings: z.tuple([]),
  saveSettings: z.tuple([z.record(z.string().max(64), z.string().max(10_000))]),
} satisfies { [K in RequestChannel]: z.ZodType<ArgsOf<K>> };

export const REQUEST_CHANNELS = Object.keys(ipcArguments) as RequestChannel[];
