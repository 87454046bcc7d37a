import { describe, expect, it } from '@jest/globals';
import { acceptMessageUpdate, applyMessageUpdate, deliveryMark, failureReason, mergeDelivered, type DeliveredMessage } from './delivery';

const message = (overrides: Partial<DeliveredMessage> = {}): DeliveredMessage => ({
  id: 'm1',
  conversationId: 'c1',
  sequence: 1,
  senderKind: 'agent',
  senderId: 'a1',
  text: 'hello',
  clientMessageId: null,
  createdAt: '2026-01-01T10:00:00.000Z',
  deliveredAt: null,
  readAt: null,
  deliveryStatus: null,
  deliveryError: null,
  attachments: [],
  ...overrides,
});

describe('delivery marks', () => {
  it('shows the provider status of a messaging-channel message', () => {
    for (const status of ['pending', 'sent', 'delivered', 'read', 'failed'] as const) {
      expect(deliveryMark(message({ deliveryStatus: status }))).toBe(status);
    }
  });

  it('falls back to the web-chat receipts when the message has no provider status', () => {
    expect(deliveryMark(message())).toBe('sent');
    expect(deliveryMark(message({ deliveryStatus: null, deliveredAt: '2026-01-01T10:00:01Z' }))).toBe('delivered');
    expect(deliveryMark(message({ deliveredAt: '2026-01-01T10:00:01Z', readAt: '2026-01-01T10:00:02Z' }))).toBe('read');
  });

  it("gives the provider's reason only for a failed message", () => {
    expect(failureReason(message({ deliveryStatus: 'failed', deliveryError: ' Recipient blocked the bot ' }))).toBe(
      'Recipient blocked the bot',
    );
    expect(failureReason(message({ deliveryStatus: 'failed', deliveryError: null }))).toBeNull();
    expect(failureReason(message({ deliveryStatus: 'sent', deliveryError: 'stale' }))).toBeNull();
  });
});

describe('message updates', () => {
  it('moves the status forward only: a late "delivered" does not undo "read"', () => {
    const read = message({ deliveryStatus: 'read' });
    expect(acceptMessageUpdate(read, message({ deliveryStatus: 'delivered' }))).toBe(read);
    expect(acceptMessageUpdate(message({ deliveryStatus: 'sent' }), message({ deliveryStatus: 'read' })).deliveryStatus).toBe('read');
  });

  it('keeps a web-chat read mark when an older view of the message arrives after it (the send’s own answer)', () => {
    const read = message({ deliveredAt: '2026-01-01T10:00:01Z', readAt: '2026-01-01T10:00:02Z' });
    const late = acceptMessageUpdate(read, message());
    expect([late.deliveredAt, late.readAt]).toEqual(['2026-01-01T10:00:01Z', '2026-01-01T10:00:02Z']);
    expect(deliveryMark(mergeDelivered([read], [message()])[0]!)).toBe('read');
  });

  it('keeps failed terminal and accepts failed after sent', () => {
    const failed = message({ deliveryStatus: 'failed', deliveryError: 'expired' });
    expect(acceptMessageUpdate(failed, message({ deliveryStatus: 'read' }))).toBe(failed);
    const now = acceptMessageUpdate(message({ deliveryStatus: 'sent' }), message({ deliveryStatus: 'failed', deliveryError: 'too late' }));
    expect([now.deliveryStatus, now.deliveryError]).toEqual(['failed', 'too late']);
  });

  it('keeps the attachments held when an update carries none', () => {
    const attachments = [
      { id: 'f1', kind: 'image' as const, fileName: 'a.png', mimeType: 'image/png', size: 10, url: '/api/attachments/f1' },
    ];
    const held = message({ deliveryStatus: 'pending', attachments });
    const receipt = { ...message({ deliveryStatus: 'sent' }), attachments: undefined } as unknown as DeliveredMessage;
    expect(acceptMessageUpdate(held, receipt).attachments).toEqual(attachments);
  });

  it('updates a list by id and leaves it untouched for an unknown or stale message', () => {
    const list = [message({ deliveryStatus: 'sent' }), message({ id: 'm2', sequence: 2, deliveryStatus: 'read' })];
    expect(applyMessageUpdate(list, message({ id: 'm9', deliveryStatus: 'read' }))).toBe(list);
    expect(applyMessageUpdate(list, message({ id: 'm2', sequence: 2, deliveryStatus: 'sent' }))).toBe(list);
    expect(applyMessageUpdate(list, message({ deliveryStatus: 'delivered' })).map((one) => one.deliveryStatus)).toEqual([
      'delivered',
      'read',
    ]);
  });

  it('merges a REST answer without moving a status backwards, ordered by sequence', () => {
    const held = [message({ id: 'm2', sequence: 2, deliveryStatus: 'read' })];
    const merged = mergeDelivered(held, [message({ id: 'm2', sequence: 2, deliveryStatus: 'sent' }), message({ id: 'm1', sequence: 1 })]);
    expect(merged.map((one) => [one.id, one.deliveryStatus ?? null])).toEqual([
      ['m1', null],
      ['m2', 'read'],
    ]);
  });
});
