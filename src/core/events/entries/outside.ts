import { z } from 'zod';
import { define } from '../define';

const page = { step: z.union([z.number(), z.string()]), pager: z.string(), action: z.string().optional(), request_id: z.string().optional(), to: z.string().optional() };
/** Which of the incident's audit events a sink took, refused or is waiting for, and why. */
const audit = z.looseObject({ sink: z.string(), ids: z.array(z.string()), reason: z.string().optional() });

/** What reached the pagers and the audit sinks, or did not. */
export const outsideEntries = {
  pageSent: define('page.sent', z.looseObject(page), 'runtime'),
  pageFailed: define('page.failed', z.looseObject({ ...page, reason: z.string() }), 'error'),
  auditDelivered: define('audit.delivered', audit, 'runtime'),
  auditFailed: define('audit.failed', audit, 'error'),
  auditWaiting: define('audit.waiting', audit, 'runtime'),
};
