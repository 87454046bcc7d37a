/**
 * The parts of the Telegram Bot API (https://core.telegram.org/bots/api) the adapter reads and
 * writes. Every field a webhook carries is optional here on purpose: parse.ts checks each one it
 * uses, since a verified body is still untrusted input.
 */

/** Every Bot API answer: `{ok:true,result}` or `{ok:false,error_code,description,parameters}`. */
export type TelegramApiResponse<T> = { ok: true; result: T } | TelegramApiError;

export interface TelegramApiError {
  ok: false;
  error_code: number;
  description: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

export interface TelegramUser {
  id: number;
  is_bot?: boolean;
  first_name?: string;
  last_name?: string;
  username?: string;
  language_code?: string;
}

export interface TelegramChat {
  id: number;
  type: 'private' | 'group' | 'supergroup' | 'channel';
  first_name?: string;
  last_name?: string;
  username?: string;
  title?: string;
}

interface TelegramFileBase {
  file_id: string;
  file_unique_id?: string;
  file_size?: number;
}

export interface TelegramPhotoSize extends TelegramFileBase {
  width: number;
  height: number;
}

export interface TelegramDocument extends TelegramFileBase {
  file_name?: string;
  mime_type?: string;
}

export interface TelegramAudio extends TelegramDocument {
  duration?: number;
  title?: string;
  performer?: string;
}

export interface TelegramVoice extends TelegramFileBase {
  duration?: number;
  mime_type?: string;
}

export interface TelegramVideo extends TelegramDocument {
  width?: number;
  height?: number;
  duration?: number;
}

export interface TelegramSticker extends TelegramFileBase {
  emoji?: string;
  is_animated?: boolean;
  is_video?: boolean;
}

export interface TelegramMessage {
  message_id: number;
  date: number;
  edit_date?: number;
  from?: TelegramUser;
  chat: TelegramChat;
  text?: string;
  caption?: string;
  photo?: TelegramPhotoSize[];
  document?: TelegramDocument;
  animation?: TelegramVideo;
  audio?: TelegramAudio;
  voice?: TelegramVoice;
  video?: TelegramVideo;
  video_note?: TelegramVideo;
  sticker?: TelegramSticker;
  location?: { latitude: number; longitude: number };
  contact?: { phone_number: string; first_name?: string; last_name?: string };
  reply_markup?: { inline_keyboard?: { text: string; callback_data?: string }[][] };
}

/** A tap on an inline keyboard's callback button (answered with answerCallbackQuery). */
export interface TelegramCallbackQuery {
  id: string;
  from: TelegramUser;
  /** The bot's message the button was under (absent for inline-mode messages). */
  message?: TelegramMessage;
  chat_instance: string;
  data?: string;
}

export interface TelegramChatMember {
  status: 'creator' | 'administrator' | 'member' | 'restricted' | 'left' | 'kicked';
  user?: TelegramUser;
}

export interface TelegramChatMemberUpdated {
  chat: TelegramChat;
  from?: TelegramUser;
  date: number;
  old_chat_member?: TelegramChatMember;
  new_chat_member: TelegramChatMember;
}

/** One webhook delivery carries exactly one Update. */
export interface TelegramUpdate {
  update_id: number;
  message?: TelegramMessage;
  edited_message?: TelegramMessage;
  my_chat_member?: TelegramChatMemberUpdated;
  callback_query?: TelegramCallbackQuery;
}

/** getFile's answer: the download link is `{api}/file/bot<token>/<file_path>`, valid for at least an hour. */
export interface TelegramFile {
  file_id: string;
  file_unique_id?: string;
  file_size?: number;
  file_path?: string;
}
