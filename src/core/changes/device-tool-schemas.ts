import { z } from 'zod';
import { ConfigPreview } from '../../runbooks/config-preview';
import { SHA256_HEX } from '../../runbooks/config-fingerprint';
import { CHANGE_ID, CONFIRM_WITHIN_S, ChangeStatus, type DeviceToolName } from './device-contract';
import { DeviceFailure } from './device-failure';

/**
 * The device-tool contract on the wire, defined once: each tool's input (the MCP input schema the
 * device server and the simulated lab both register) and what its answer carries as structured
 * content. A failure carries `{error: DeviceFailure}` whatever the tool; its text is for a person.
 */
const device = z.string().min(1).max(253).describe('Device name as in the inventory');
const change = { device, change_id: z.string().min(1).max(100).describe('The change_id config_cli returned') };
const lines = z.array(z.string()).min(1).max(200);

export const DEVICE_TOOL_INPUTS = {
  exec_cli: {
    device,
    command: z.string().min(1).describe('One show command, e.g. "show ip bgp summary"'),
  },
  config_cli: {
    device,
    commands: lines.describe('Configuration lines in order, without "configure terminal" or "end"'),
    confirm_within_s: z.number().int().min(CONFIRM_WITHIN_S.min).max(CONFIRM_WITHIN_S.max).optional()
      .describe('Makes the change provisional: rolled back (and verified) unless confirm_change is called within this many seconds'),
    expect_config_sha256: z.string().regex(SHA256_HEX).optional()
      .describe("The fingerprint of the configuration the change was previewed on (preview_config's): nothing is sent when the device's differs"),
    change_id: z.string().regex(CHANGE_ID).optional()
      .describe('With confirm_within_s: the id the change is to carry (else the server picks one), so it can be asked about even when this answer is lost'),
  },
  confirm_change: change,
  rollback_change: { ...change, reason: z.string().min(1).max(500).describe('Why, e.g. "post-check failed"') },
  change_status: change,
  preview_config: { device, commands: lines.describe('The configuration lines, in order') },
} satisfies Record<DeviceToolName, z.ZodRawShape>;

/** What each tool's successful answer carries as structured content (exec_cli and a plain config_cli: text only). */
export const DEVICE_TOOL_OUTPUTS = {
  exec_cli: undefined,
  /** With confirm_within_s: the pending change. */
  config_cli: ChangeStatus,
  confirm_change: ChangeStatus,
  rollback_change: ChangeStatus,
  change_status: ChangeStatus,
  preview_config: ConfigPreview,
} satisfies Record<DeviceToolName, z.ZodType | undefined>;

/** A failed call's structured content. */
export const DeviceToolFailure = z.object({ error: DeviceFailure });
export type DeviceToolFailure = z.infer<typeof DeviceToolFailure>;
