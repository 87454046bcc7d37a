import { parseWhatsAppWebhook } from './webhook';

const body = (value: Record<string, unknown>) =>
  Buffer.from(
    JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: '102290129340398', time: 1_780_000_000, changes: [{ field: 'phone_number_quality_update', value }] }],
    }),
  );

describe('WhatsApp phone_number_quality_update', () => {
  it('reads the event and the tiers (max_daily_conversations_per_business before the retiring current_limit)', () => {
    expect(
      parseWhatsAppWebhook(
        body({
          display_phone_number: '15550783881',
          event: 'DOWNGRADE',
          old_limit: 'TIER_10K',
          current_limit: 'TIER_1K',
          max_daily_conversations_per_business: 'TIER_1K',
        }),
        '106540352242922',
      ),
    ).toEqual([
      {
        type: 'quality-update',
        displayPhoneNumber: '15550783881',
        event: 'DOWNGRADE',
        currentLimit: 'TIER_1K',
        oldLimit: 'TIER_10K',
        at: expect.any(Date),
      },
    ]);
    expect(parseWhatsAppWebhook(body({ display_phone_number: '15550783881', event: 'FLAGGED', current_limit: 'TIER_250' }), 'x')).toEqual([
      expect.objectContaining({ event: 'FLAGGED', currentLimit: 'TIER_250' }),
    ]);
  });

  it('ignores another number of the business account when the account knows its display number', () => {
    const update = body({ display_phone_number: '15550783881', event: 'FLAGGED', current_limit: 'TIER_250' });
    expect(parseWhatsAppWebhook(update, 'x', { displayPhoneNumber: '+1 555 000 1111' })).toEqual([]);
    expect(parseWhatsAppWebhook(update, 'x', { displayPhoneNumber: '+1 555-078-3881' })).toHaveLength(1);
  });
});
