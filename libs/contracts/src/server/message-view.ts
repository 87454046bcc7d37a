import type { AttachmentKind, AttachmentView, MessageDeliveryStatus } from '../channels';
import { roomName, type MessageView } from '../realtime';
import { socketEffect, type OutboxEffect } from './outbox';

/**
 * A message as every process builds its view: the API (lists, sends, pushes) and the worker (the
 * push of a delivery-status change) read the same columns and answer the same MessageView.
 */
export interface MessageRow {
  id: string;
  conversation_id: string;
  sequence: number;
  sender_kind: MessageView['senderKind'];
  sender_id: string | null;
  text: string;
  client_message_id: string | null;
  created_at: Date;
  delivered_at: Date | null;
  read_at: Date | null;
  /** Absent on a row built in memory before it was written (a customer's message: null). */
  delivery_status?: MessageDeliveryStatus | null;
  delivery_error?: string | null;
  /** The MESSAGE_ATTACHMENTS_SQL aggregate, when the query selected it (absent: none). */
  attachments?: AttachmentRow[] | null;
}

/** One attachment as MESSAGE_ATTACHMENTS_SQL aggregates it. */
export interface AttachmentRow {
  id: string;
  kind: AttachmentKind;
  file_name: string;
  mime_type: string;
  size: number;
}

/**
 * The attachments of message `m` as one JSON array: a column of the query that reads the messages
 * (`SELECT m.*, ${MESSAGE_ATTACHMENTS_SQL} FROM messages m …`), so a whole list costs one statement,
 * not one per message. In the order they were added.
 */
export const MESSAGE_ATTACHMENTS_SQL = `(SELECT COALESCE(json_agg(json_build_object('id', a.id, 'kind', a.kind, 'file_name', a.file_name,
     'mime_type', a.mime_type, 'size', a.size) ORDER BY a.created_at, a.id), '[]'::json)
   FROM message_attachments a WHERE a.message_id = m.id) AS attachments`;

/** Staff download path (GET, bearer); the widget downloads its own at /api/webchat/conversation/attachments/:id. */
export function attachmentView(row: AttachmentRow): AttachmentView {
  return {
    id: row.id,
    kind: row.kind,
    fileName: row.file_name,
    mimeType: row.mime_type,
    size: row.size,
    url: `/api/attachments/${row.id}`,
  };
}

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

export function messageView(row: MessageRow): MessageView {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    sequence: row.sequence,
    senderKind: row.sender_kind,
    senderId: row.sender_id,
    text: row.text,
    clientMessageId: row.client_message_id,
    createdAt: iso(row.created_at)!,
    deliveredAt: iso(row.delivered_at),
    readAt: iso(row.read_at),
    deliveryStatus: row.delivery_status ?? null,
    deliveryError: row.delivery_error ?? null,
    attachments: (row.attachments ?? []).map(attachmentView),
  };
}

/**
 * The push of a stored message that changed (its delivery status moved): to the conversation's
 * room and its agent's on /staff, and to the visitor's room, as `message.created` goes. Written
 * to the outbox in the transaction of the change, by the worker (send results) and the API (receipts).
 */
export function messageUpdatedEffect(conversation: { id: string; agent_id: string | null }, view: MessageView): OutboxEffect {
  const room = roomName({ kind: 'conversation', id: conversation.id });
  const rooms = conversation.agent_id ? [room, roomName({ kind: 'agent', id: conversation.agent_id })] : [room];
  return socketEffect(
    { namespace: 'staff', rooms, event: 'message.updated', data: view },
    { namespace: 'visitor', rooms: [room], event: 'message.updated', data: view },
  );
}
