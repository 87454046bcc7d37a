import { DELIVERY_STATUS_RANK, type MessageDeliveryStatus, type MessageView } from '@centralita/contracts';

/** The mark beside an agent's message: the provider's delivery status on messaging channels, read receipts on web chat. */
export type DeliveryMark = MessageDeliveryStatus;

/**
 * A message with its delivery fields: on a messaging channel an agent's message carries
 * `deliveryStatus`; web chat and customer messages carry null.
 */
export type DeliveredMessage = MessageView;

/**
 * Which mark an agent's message shows. A provider status wins when the message has one (messaging
 * channels); web chat has no provider, so its marks come from the widget's own receipts (read
 * beats delivered beats sent).
 */
export function deliveryMark(message: DeliveredMessage): DeliveryMark {
  if (message.deliveryStatus) return message.deliveryStatus;
  if (message.readAt) return 'read';
  if (message.deliveredAt) return 'delivered';
  return 'sent';
}

/** The provider's reason for a failed send, or null when the message did not fail. */
export function failureReason(message: DeliveredMessage): string | null {
  if (deliveryMark(message) !== 'failed') return null;
  const reason = message.deliveryError?.trim();
  return reason ? reason : null;
}

/**
 * Applies a message update (a receipt, the worker's send result) to the message held. Statuses only
 * move forward (pending < sent < delivered < read; failed is terminal), the same rule the server
 * keeps: pushes from different processes can cross, and a late "delivered" must not undo "read".
 * A push that is not newer leaves the held message untouched (same object), so nothing re-renders.
 */
export function acceptMessageUpdate<T extends DeliveredMessage>(held: T | undefined, incoming: T): T {
  if (!held) return incoming;
  const before = held.deliveryStatus ?? null;
  const after = incoming.deliveryStatus ?? null;
  if (before && after && DELIVERY_STATUS_RANK[after] < DELIVERY_STATUS_RANK[before]) return held;
  if (before === 'failed' && after !== 'failed') return held;
  const merged = { ...held, ...incoming };
  // A receipt without the attachment list (or an older view) must not drop what the desk already shows.
  if (!incoming.attachments && held.attachments) merged.attachments = held.attachments;
  // Web chat's receipts only move forward too: the answer to the agent's own send (a view from before
  // the visitor read it) arriving after the read mark must not turn "read" back into "delivered".
  if (!incoming.readAt && held.readAt) merged.readAt = held.readAt;
  if (!incoming.deliveredAt && held.deliveredAt) merged.deliveredAt = held.deliveredAt;
  return merged;
}

/** Applies updates to a conversation's message list by id; unknown messages are ignored (the next resync brings them). */
export function applyMessageUpdate<T extends DeliveredMessage>(messages: readonly T[], incoming: T): readonly T[] {
  const index = messages.findIndex((message) => message.id === incoming.id);
  if (index < 0) return messages;
  const next = acceptMessageUpdate(messages[index], incoming);
  if (next === messages[index]) return messages;
  const copy = [...messages];
  copy[index] = next;
  return copy;
}

/**
 * mergeMessages (ordered by sequence, unique by id) with the delivery rule: a message already held
 * is updated through acceptMessageUpdate, so a slow REST answer cannot move a status backwards.
 */
export function mergeDelivered<T extends DeliveredMessage>(held: readonly T[], incoming: readonly T[]): T[] {
  const byId = new Map(held.map((message) => [message.id, message]));
  for (const message of incoming) byId.set(message.id, acceptMessageUpdate(byId.get(message.id), message));
  return [...byId.values()].sort((a, b) => a.sequence - b.sequence);
}
