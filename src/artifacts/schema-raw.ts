import { z } from 'zod';
import { alertDefIdSchema, semverSchema, variableFormatSchema, variableNameSchema } from './schema-fs';

const stepIdSchema = z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be snake_case, e.g. validate_neighbor_state');

/**
 * A check on a command's output. Strings are templates ({{neighbor_ip|re}}); regexes are
 * JavaScript, multiline. `var` checks a value captured earlier in the run.
 */
export const expectationSchema = z.union([
  z.strictObject({ contains: z.string().min(1) }),
  z.strictObject({ not_contains: z.string().min(1) }),
  z.strictObject({ matches: z.string().min(1) }),
  z.strictObject({ not_matches: z.string().min(1) }),
  z.strictObject({
    var: variableNameSchema,
    equals: z.string().optional(),
    gt: z.number().optional(),
    lt: z.number().optional(),
  }),
]);
export type Expectation = z.infer<typeof expectationSchema>;

export const rawInputSchema = z.strictObject({
  name: variableNameSchema,
  description: z.string().min(1),
  required: z.boolean().default(false),
  /**
   * The value's format (formats.ts), checked at intake and whenever a command is rendered; only a
   * variable with a format other than `text` may be rendered into a command.
   */
  format: variableFormatSchema,
  /** Used when the alert does not carry the value (e.g. an empty VRF means the global table). */
  default: z.string().optional(),
});

/** A plan device's role name (`peer`, `far_end`): declared under `plan_devices`, named by steps. */
export const planRoleSchema = z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, 'a role name in snake_case, e.g. far_end');

/**
 * How the relay finds a plan's extra device from the alert and the inventory, never from the model:
 * `address_owner`: the inventory device one of whose `addresses` is the input's IPv4 value (the peer
 * of a BGP session by its neighbor address); `link_peer`: the other inventory device with an address
 * in the subnet of the incident device's interface the input names (the far end of a link).
 */
export const PLAN_DEVICE_LOOKUPS = ['address_owner', 'link_peer'] as const;
export const planDeviceSchema = z.strictObject({
  role: planRoleSchema,
  description: z.string().min(1),
  find: z.enum(PLAN_DEVICE_LOOKUPS),
  /** The RAW input the lookup reads: format ipv4 for address_owner, interface for link_peer. */
  input: variableNameSchema,
});
export type PlanDeviceDecl = z.infer<typeof planDeviceSchema>;

const common = {
  id: stepIdSchema,
  description: z.string().min(1),
};

/** Regex(es) with named groups run over the output; each group becomes a run variable. */
const captureSchema = z.array(z.string().min(1)).default([]);

const execAction = z.strictObject({ type: z.literal('exec_cli'), command: z.string().min(1) });
const configAction = z.strictObject({ type: z.literal('config_cli'), commands: z.array(z.string()).min(1) });

/**
 * The platforms a RAW may name variants for (the device tool server's platforms). On `netconf` the
 * show commands are the NETCONF show forms and a repair's lines are one XML `<config>` fragment.
 */
export const RAW_PLATFORMS = ['ios', 'iosxe', 'nxos', 'eos', 'frr', 'netconf'] as const;
export type RawPlatform = (typeof RAW_PLATFORMS)[number];
/** The RAW input that selects a variant; without it (or without a variant for it) the step is used as written. */
export const PLATFORM_INPUT = 'device_platform';
const platformKey = z.enum(RAW_PLATFORMS, { error: `one of ${RAW_PLATFORMS.join(', ')}` });

const failureCaseSchema = z.strictObject({
  /** All must hold for this case to apply. */
  when: z.array(expectationSchema).min(1),
  next: stepIdSchema,
});

/**
 * Where a platform's command forms differ (FRR has no `| section`, other VRF forms, no log buffer),
 * a step says so: the variant replaces the fields it names, for that platform only, and keeps the
 * step's meaning and transitions.
 */
const checkVariant = z.strictObject({
  action: execAction.optional(),
  capture: z.array(z.string().min(1)).optional(),
  expect: z.array(expectationSchema).optional(),
  failure_cases: z.array(failureCaseSchema).optional(),
});
const repairVariant = z.strictObject({ action: configAction.optional(), expect: z.array(expectationSchema).optional() });

/**
 * The same repair's lines on another device of the plan: one approval, one hash over every device's
 * lines, applied on all of them or on none. `variants` are chosen by that device's own platform.
 */
export const planLinesSchema = z.strictObject({
  device: planRoleSchema,
  commands: z.array(z.string()).min(1),
  variants: z.partialRecord(platformKey, z.strictObject({ commands: z.array(z.string()).min(1) })).optional(),
});
export type PlanLines = z.infer<typeof planLinesSchema>;

/** A show command run on a plan device instead of the incident's own (absent: the incident's device). */
const onDevice = { device: planRoleSchema.optional() };

const checkStep = (kind: 'validate' | 'collect' | 'revalidate') =>
  z.strictObject({
    ...common,
    ...onDevice,
    kind: z.literal(kind),
    action: execAction,
    timeout_s: z.number().positive().max(600).default(30),
    /** Poll until the expectations hold; attempts × interval bounds the step. */
    retry: z.strictObject({ attempts: z.number().int().min(1).max(60), interval_s: z.number().positive().max(600) }).optional(),
    capture: captureSchema,
    expect: z.array(expectationSchema).default([]),
    on_success: stepIdSchema,
    /** Checked in order when `expect` does not hold; the first case whose `when` all hold wins. */
    failure_cases: z.array(failureCaseSchema).default([]),
    on_failure: stepIdSchema,
    /** The tool call itself failed: unknown or unreachable device, invalid command, timeout. */
    on_error: stepIdSchema,
    variants: z.partialRecord(platformKey, checkVariant).optional(),
  });

export const repairStepSchema = z.strictObject({
  ...common,
  kind: z.literal('repair'),
  action: configAction,
  timeout_s: z.number().positive().max(600).default(60),
  /** What the approval card shows the operator, beside the rendered commands. */
  approval_summary: z.string().min(1),
  /**
   * Seconds the applied change stays provisional: the relay confirms it when the post-check (the
   * revalidate step after this one) passes; otherwise the device is put back. Default: CONFIRM_WITHIN_S.
   */
  confirm_within_s: z.number().int().min(5).max(3600).optional(),
  /** More devices in this repair's plan (the incident's own device takes `action`). */
  plan: z.array(planLinesSchema).min(1).max(7).optional(),
  expect: z.array(expectationSchema).default([]),
  on_success: stepIdSchema,
  on_denied: stepIdSchema,
  on_failure: stepIdSchema,
  on_error: stepIdSchema,
  variants: z.partialRecord(platformKey, repairVariant).optional(),
});

export const waitStepSchema = z.strictObject({
  ...common,
  kind: z.literal('wait'),
  duration_s: z.number().positive().max(3600),
  next: stepIdSchema,
});

const terminal = (kind: 'resolve' | 'fail' | 'escalate') =>
  z.strictObject({
    ...common,
    kind: z.literal(kind),
    /** Rendered into the outcome report. */
    summary: z.string().min(1),
  });

export const rawStepSchema = z.discriminatedUnion('kind', [
  checkStep('validate'),
  checkStep('collect'),
  checkStep('revalidate'),
  repairStepSchema,
  waitStepSchema,
  terminal('resolve'),
  terminal('fail'),
  terminal('escalate'),
]);
export type RawStep = z.infer<typeof rawStepSchema>;
export type CheckStep = Extract<RawStep, { kind: 'validate' | 'collect' | 'revalidate' }>;
export type RepairStep = z.infer<typeof repairStepSchema>;
export type TerminalStep = Extract<RawStep, { kind: 'resolve' | 'fail' | 'escalate' }>;

export const STEP_KINDS = ['validate', 'collect', 'repair', 'wait', 'revalidate', 'resolve', 'fail', 'escalate'] as const;

export const repairActionWorkflowSchema = z.strictObject({
  kind: z.literal('repair_action_workflow'),
  alert_def_id: alertDefIdSchema,
  title: z.string().min(1),
  version: semverSchema,
  /** The FS version this workflow was written against. */
  fs_version: semverSchema,
  /** Template naming the device every action targets, e.g. "{{device_hostname}}". */
  device: z.string().min(1),
  /** Platforms this workflow runs on; each step's command, as that platform gets it, must be in its grammar. */
  platforms: z.array(platformKey).min(1).default(['iosxe']),
  inputs: z.array(rawInputSchema).min(1),
  /** The devices besides the incident's own that a plan may change, each found by the relay (schema above). */
  plan_devices: z.array(planDeviceSchema).max(7).default([]),
  /** Steps run from the first; transitions name step ids. */
  steps: z.array(rawStepSchema).min(2),
});
export type RepairActionWorkflow = z.infer<typeof repairActionWorkflowSchema>;
