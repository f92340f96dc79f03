import { z } from 'zod';
import { faultSpecSchema } from '../lab/faults';
import { RAW_PLATFORMS } from './schema-raw';

/** One RAW test case: a lab scenario, the operator's answer, and what the run must do. */
export const rawTestCaseSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().min(1).optional(),
  /** The alert as the relay would hand it over: hostname plus alert_vars. */
  alert: z.strictObject({
    device_hostname: z.string().min(1),
    alert_vars: z.record(z.string(), z.string()).default({}),
    raw_message: z.string().nullable().default(null),
  }),
  lab: z
    .strictObject({
      /** Inventory file relative to the repository root; the lab's default when omitted. */
      inventory: z.string().optional(),
      faults: z.array(faultSpecSchema).default([]),
    })
    .default({ faults: [] }),
  approval: z.enum(['APPROVED', 'DENIED', 'none']).default('none'),
  /** Where this case runs: the simulated IOS-XE lab, and real FRR routers with `raw:test -- --frr`. */
  platforms: z.array(z.enum(RAW_PLATFORMS)).min(1).default(['iosxe']),
  /** What differs in the expectations on real FRR (its routers advertise other prefixes than the simulated lab). */
  frr: z.strictObject({ summary_contains: z.array(z.string()).optional() }).optional(),
  expect: z.strictObject({
    outcome: z.enum(['resolved', 'escalated', 'failed']),
    /** The exact sequence of step ids the run takes; empty when it stops before the first step. */
    path: z.array(z.string().min(1)),
    /** How many config_cli calls reached the device. */
    config_changes: z.number().int().min(0).optional(),
    /** Substrings of the terminal summary. */
    summary_contains: z.array(z.string()).default([]),
  }),
});
export type RawTestCase = z.infer<typeof rawTestCaseSchema>;
