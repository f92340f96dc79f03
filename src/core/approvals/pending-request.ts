import type { ApprovalRequest, Incident } from '../incidents/model';
import { linesSha256 } from './lines';
import { planSha256 } from './plan-lines';
import { newRequestId } from './request-id';
import type { ApprovalRequestInput } from './types';

/**
 * A new approval request as stored: its own id, the incident's device (never the caller's
 * string), the lines exactly as asked and their hash. The human path and the unattended one
 * build it the same way, so the guard checks both against the same record.
 */
export function pendingRequest(incident: Incident, input: ApprovalRequestInput, at: Date, expiresAt: Date, channels: string[]): ApprovalRequest {
  return {
    request_id: newRequestId(),
    terminal_shown_at: null,
    summary: input.summary,
    device: incident.device_hostname,
    commands: input.commands,
    rollback: input.rollback ?? [],
    artifact_ref: input.artifact_ref,
    requested_at: at.toISOString(),
    expires_at: expiresAt.toISOString(),
    status: 'pending',
    lines_sha256: input.plan ? planSha256(input.plan) : linesSha256(input.commands),
    channels,
    preview: input.preview ?? null,
    ...(input.plan ? { plan: input.plan } : {}),
  };
}
