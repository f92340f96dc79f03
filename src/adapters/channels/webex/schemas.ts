import { z } from 'zod';

/*
 * Every Webex shape the bot reads or writes. Objects are loose: Webex adds fields freely and
 * the bot must keep working when it does; only the fields the bot relies on are required.
 */

// ---- U2C service catalog (GET {u2c}/catalog?format=hostmap) ----

export const hostCatalogEntrySchema = z.looseObject({
  host: z.string().optional(),
  id: z.string(),
  priority: z.number().optional(),
  ttl: z.number().optional(),
});

export const serviceCatalogSchema = z.looseObject({
  serviceLinks: z.record(z.string(), z.string()).default({}),
  hostCatalog: z.record(z.string(), z.array(hostCatalogEntrySchema)).default({}),
});
export type ServiceCatalog = z.infer<typeof serviceCatalogSchema>;

// ---- WDM devices ----

export const deviceSchema = z.looseObject({
  url: z.url(),
  webSocketUrl: z.string().optional(),
  name: z.string().optional(),
  deviceType: z.string().optional(),
  userId: z.string().optional(),
  modificationTime: z.string().optional(),
});
export type Device = z.infer<typeof deviceSchema>;

export const deviceListSchema = z.looseObject({ devices: z.array(deviceSchema).default([]) });

/** A device that can carry a websocket: the only kind the bot keeps. */
export const connectableDeviceSchema = deviceSchema.extend({ webSocketUrl: z.string().min(1) });
export type ConnectableDevice = z.infer<typeof connectableDeviceSchema>;

// ---- Mercury websocket frames ----

export const activitySchema = z.looseObject({
  id: z.string(),
  verb: z.string(),
  published: z.string().optional(),
  actor: z.looseObject({
    id: z.string().optional(),
    entryUUID: z.string().optional(),
    emailAddress: z.string().optional(),
  }),
  object: z.looseObject({ objectType: z.string().optional(), inputs: z.unknown().optional() }).optional(),
  parent: z.looseObject({ id: z.string(), type: z.string().optional() }).optional(),
  target: z.looseObject({ id: z.string(), url: z.string().optional() }).optional(),
});
export type Activity = z.infer<typeof activitySchema>;

/** Any inbound frame: an event envelope (`data.eventType`), a pong, or a server `shutdown`. */
export const inboundFrameSchema = z.looseObject({
  id: z.string().optional(),
  type: z.string().optional(),
  sequenceNumber: z.coerce.number().optional(),
  data: z.looseObject({ eventType: z.string().optional() }).optional(),
});
export type InboundFrame = z.infer<typeof inboundFrameSchema>;

export const activityEventSchema = z.looseObject({
  eventType: z.literal('conversation.activity'),
  activity: activitySchema,
});

// ---- REST (https://webexapis.com/v1) ----

export const attachmentActionSchema = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  messageId: z.string(),
  roomId: z.string(),
  personId: z.string(),
  personEmail: z.string().optional(),
  inputs: z.record(z.string(), z.unknown()).default({}),
  created: z.string(),
});
export type AttachmentAction = z.infer<typeof attachmentActionSchema>;

export const messageSchema = z.looseObject({
  id: z.string(),
  roomId: z.string().optional(),
  parentId: z.string().optional(),
  personId: z.string().optional(),
  personEmail: z.string().optional(),
  markdown: z.string().optional(),
  text: z.string().optional(),
  created: z.string().optional(),
});
export type Message = z.infer<typeof messageSchema>;

export const personSchema = z.looseObject({
  id: z.string(),
  emails: z.array(z.string()).default([]),
  displayName: z.string().optional(),
  type: z.string().optional(),
});
export type Person = z.infer<typeof personSchema>;

/** Webex error bodies carry a human message and a tracking id worth quoting to support. */
export const apiErrorBodySchema = z.looseObject({
  message: z.string().optional(),
  trackingId: z.string().optional(),
});

// ---- Adaptive Cards (only what Webex needs to accept and route a card) ----

export const ADAPTIVE_CARD_CONTENT_TYPE = 'application/vnd.microsoft.card.adaptive';

export const cardElementSchema = z.looseObject({ type: z.string().min(1) });

export const cardActionSchema = z.looseObject({
  type: z.string().min(1),
  title: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

export const adaptiveCardSchema = z.looseObject({
  type: z.literal('AdaptiveCard'),
  version: z.string().regex(/^1\.[0-3]$/, 'Webex renders Adaptive Cards up to version 1.3'),
  body: z.array(cardElementSchema),
  // Webex shows at most five actions on a card.
  actions: z.array(cardActionSchema).max(5).optional(),
});
export type AdaptiveCard = z.infer<typeof adaptiveCardSchema>;

// ---- The relay's own card payload ----

export const FAULT_APPROVAL_KEYWORD = 'fault_approval';

/** `Action.Submit` data on the approval card; Webex merges it into the submission's `inputs`. */
export const faultApprovalDataSchema = z.object({
  callback_keyword: z.literal(FAULT_APPROVAL_KEYWORD),
  alert_def_id: z.string().min(1),
  /** Cards the relay posts carry it; the seed's card shape has only alert_def_id and decision. */
  incident_id: z.string().min(1).optional(),
  /** The approval request the card was posted for: a click decides that request or nothing. */
  request_id: z.string().min(1).max(64).optional(),
  decision: z.enum(['APPROVED', 'DENIED']),
});
export type FaultApprovalData = z.infer<typeof faultApprovalDataSchema>;

// ---- What the bot reports to the relay ----

export const messagingStatusSchema = z.object({
  configured: z.boolean(),
  connected: z.boolean(),
  deviceRegistered: z.boolean(),
  lastEventAt: z.string().optional(),
  error: z.string().optional(),
});
export type MessagingStatus = z.infer<typeof messagingStatusSchema>;

export const cardSubmissionSchema = z.object({
  actionId: z.string(),
  messageId: z.string(),
  roomId: z.string(),
  personId: z.string(),
  personEmail: z.string().optional(),
  inputs: z.record(z.string(), z.unknown()),
  created: z.string(),
});
export type CardSubmission = z.infer<typeof cardSubmissionSchema>;

/** `/health/deep` messaging when MSG_BOT_TOKEN or MSG_ROOM_ID is unset: no bot exists. */
export const MESSAGING_NOT_CONFIGURED: MessagingStatus = Object.freeze({ configured: false, connected: false, deviceRegistered: false });
