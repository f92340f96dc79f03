import { z } from 'zod';
import { faultSpecSchema } from './fault-spec';
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
  /** Where this case runs: the simulated IOS-XE lab, real FRR routers with `raw:test -- --frr`, the NETCONF lab with `--netconf`. */
  platforms: z.array(z.enum(RAW_PLATFORMS)).min(1).default(['iosxe']),
  /**
   * What differs on real FRR: its routers advertise other prefixes than the simulated lab, and name their
   * interfaces eth-<peer>, not GigabitEthernet<n> (the alert, its log line and the faults then say so).
   */
  frr: z
    .strictObject({
      summary_contains: z.array(z.string()).optional(),
      alert_vars: z.record(z.string(), z.string()).optional(),
      raw_message: z.string().optional(),
      faults: z.array(faultSpecSchema).optional(),
    })
    .optional(),
  /**
   * What differs on the NETCONF lab (`raw:test -- --netconf`): its device has no session state, so the
   * run's summary says what it checked (configuration) instead of what a router reports.
   */
  netconf: z.strictObject({ summary_contains: z.array(z.string()).optional() }).optional(),
  expect: z.strictObject({
    outcome: z.enum(['resolved', 'escalated', 'failed']),
    /** The exact sequence of step ids the run takes; empty when it stops before the first step. */
    path: z.array(z.string().min(1)),
    /** How many config_cli calls reached the device. */
    config_changes: z.number().int().min(0).optional(),
    /** Substrings of the terminal summary. */
    summary_contains: z.array(z.string()).default([]),
    /**
     * How the relay's change record ends (`npm run eval`, where the relay applies the change as a
     * provisional one and confirms or rolls it back; the RAW test runners keep no change record).
     */
    change: z.enum(['none', 'pending', 'confirmed', 'rolled_back', 'rollback_failed']).optional(),
  }),
});
export type RawTestCase = z.infer<typeof rawTestCaseSchema>;

/** The case as it runs on real FRR: its `frr:` names replace the simulated lab's (raw:test --frr, eval --frr). */
export function forFrr(tc: RawTestCase): RawTestCase {
  if (!tc.frr) return tc;
  const alert = { ...tc.alert, alert_vars: { ...tc.alert.alert_vars, ...tc.frr.alert_vars }, raw_message: tc.frr.raw_message ?? tc.alert.raw_message };
  return { ...tc, alert, lab: { ...tc.lab, faults: tc.frr.faults ?? tc.lab.faults } };
}
