/**
 * The Messenger Platform's wire shapes, as Meta documents them, for Facebook Messenger (`object:
 * page`) and Instagram messaging (`object: instagram`): webhooks carry `entry[].messaging[]`, the
 * Send API takes `{recipient, messaging_type, tag?, message | sender_action}`.
 */

export interface MessagingWebhookBody {
  object: 'page' | 'instagram' | string;
  entry: MessagingEntry[];
}

export interface MessagingEntry {
  /** The Page id (Messenger) or the Instagram professional account id (Instagram). */
  id: string;
  time: number;
  messaging?: MessagingItem[];
}

export interface MessagingItem {
  /** The customer (PSID / IGSID); for an echo, the Page or Instagram account itself. */
  sender: { id: string };
  recipient: { id: string };
  timestamp?: number;
  message?: {
    mid: string;
    text?: string;
    is_echo?: boolean;
    is_deleted?: boolean;
    is_unsupported?: boolean;
    /** A tapped quick reply: the text is its title. */
    quick_reply?: { payload?: string };
    attachments?: Array<{ type: string; payload?: { url?: string; title?: string; sticker_id?: number } }>;
  };
  delivery?: { mids?: string[]; watermark: number };
  /** Messenger: everything sent at or before `watermark` was read. Instagram: the read message's `mid`. */
  read?: { watermark?: number; mid?: string };
  postback?: { mid?: string; title?: string; payload?: string };
  optin?: { type?: string; notification_messages_status?: 'STOP_NOTIFICATIONS' | 'RESUME_NOTIFICATIONS' | string };
}

/** The Messenger attachment types the Send API and webhooks use (`file` is a document). */
export type MessengerAttachmentType = 'image' | 'audio' | 'video' | 'file';

export interface SendApiBody {
  recipient: { id: string };
  messaging_type?: 'RESPONSE' | 'UPDATE' | 'MESSAGE_TAG';
  tag?: 'HUMAN_AGENT';
  message?:
    | { text: string; quick_replies?: { content_type: 'text'; title: string; payload: string }[] }
    | { attachment: { type: MessengerAttachmentType; payload: { attachment_id: string } | { url: string } } };
  sender_action?: 'mark_seen' | 'typing_on' | 'typing_off';
}

export interface SendApiResponse {
  recipient_id: string;
  message_id: string;
}

export interface AttachmentUploadResponse {
  attachment_id: string;
}

export interface GraphErrorBody {
  error: {
    message?: string;
    type?: string;
    code?: number;
    error_subcode?: number;
    error_user_title?: string;
    error_user_msg?: string;
    is_transient?: boolean;
    fbtrace_id?: string;
  };
}
