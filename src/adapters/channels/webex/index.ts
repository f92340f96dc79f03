export { createWebexBot, type WebexBot, type WebexBotOptions } from './webex-bot';
export { buildApprovalCard, approvalFallbackMarkdown, approvalCardInputSchema, type ApprovalCardInput } from './approval-card';
export {
  adaptiveCardSchema,
  cardSubmissionSchema,
  faultApprovalDataSchema,
  messagingStatusSchema,
  FAULT_APPROVAL_KEYWORD,
  MESSAGING_NOT_CONFIGURED,
  type AdaptiveCard,
  type CardSubmission,
  type FaultApprovalData,
  type MessagingStatus,
} from './schemas';
export { DEFAULT_U2C_URL, DEFAULT_WDM_URL } from './u2c';
export { DEFAULT_API_URL } from './rest';
export { MARKDOWN_MAX_BYTES, splitMarkdown } from './markdown-split';
