export { createWhatsAppAdapter, placeholderCount } from './whatsapp.adapter';
export { WHATSAPP_CAPABILITIES } from './capabilities';
export { parseWhatsAppWebhook } from './webhook';
export type {
  WhatsAppWebhookPayload,
  WhatsAppChangeValue,
  WhatsAppInboundMessage,
  WhatsAppStatus,
  WhatsAppUserPreference,
} from './webhook';
