export { TELEGRAM_CAPABILITIES } from './capabilities';
export {
  TELEGRAM_ALLOWED_UPDATES,
  canSendTyping,
  createTelegramAdapter,
  describeTelegramError,
  type TelegramAdapter,
  type TypingIndicator,
} from './telegram.adapter';
