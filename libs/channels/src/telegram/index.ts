export { TELEGRAM_CAPABILITIES } from './capabilities';
export {
  TELEGRAM_ALLOWED_UPDATES,
  canRegisterWebhook,
  canSendTyping,
  createTelegramAdapter,
  describeTelegramError,
  type TelegramAdapter,
  type TypingIndicator,
  type WebhookRegistration,
} from './telegram.adapter';
