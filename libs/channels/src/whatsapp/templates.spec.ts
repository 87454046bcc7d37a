import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChannelAccount } from '../adapter';
import { parseWhatsAppWebhook } from './webhook';
import { createWhatsAppAdapter } from './whatsapp.adapter';

const account: ChannelAccount = {
  id: 'a',
  kind: 'whatsapp',
  externalAccountId: '106540352242922',
  settings: { wabaId: '102290129340398' },
  secrets: { accessToken: 'token', appSecret: 'secret' },
  verifyToken: 'v',
};

describe('WhatsApp templates and campaign correlation', () => {
  it('reads message_template_status_update with its reason, whatever phone number the account is', () => {
    const body = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          changes: [
            {
              field: 'message_template_status_update',
              value: {
                event: 'PAUSED',
                message_template_id: 1234567,
                message_template_name: 'cita',
                message_template_language: 'es',
                reason: 'NONE',
                other_info: { title: 'FIRST_PAUSE', description: 'Low quality' },
              },
            },
          ],
        },
      ],
    };
    expect(parseWhatsAppWebhook(Buffer.from(JSON.stringify(body)), account.externalAccountId)).toEqual([
      expect.objectContaining({
        type: 'template-status',
        providerTemplateId: '1234567',
        name: 'cita',
        language: 'es',
        status: 'PAUSED',
        reason: 'FIRST_PAUSE: Low quality',
      }),
    ]);
  });

  it('carries biz_opaque_callback_data from a status to the receipt', () => {
    const body = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'w',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { phone_number_id: account.externalAccountId },
                statuses: [
                  { id: 'wamid.X', status: 'delivered', timestamp: '1700000000', recipient_id: '34600', biz_opaque_callback_data: 'r-1' },
                ],
              },
            },
          ],
        },
      ],
    };
    expect(parseWhatsAppWebhook(Buffer.from(JSON.stringify(body)), account.externalAccountId)).toEqual([
      expect.objectContaining({ type: 'receipt', providerMessageId: 'wamid.X', status: 'delivered', callbackData: 'r-1' }),
    ]);
  });

  it('creates a template at the business account and sends templates with callback data', async () => {
    const seen: { path: string; body: Record<string, unknown> }[] = [];
    const server = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        seen.push({ path: request.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown> });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify(
            request.url?.includes('message_templates')
              ? { id: '987', status: 'PENDING', category: 'UTILITY' }
              : { messages: [{ id: 'wamid.Y' }] },
          ),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const adapter = createWhatsAppAdapter({
        metaGraphUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        metaGraphVersion: 'v23.0',
        telegramApiUrl: '',
        xApiUrl: '',
      });
      const created = await adapter.createTemplate!(account, {
        name: 'cita',
        language: 'es',
        category: 'UTILITY',
        components: [{ type: 'BODY', text: 'Hola {{1}}', example: { body_text: [['Ana']] } }],
      });
      expect(created).toEqual({ providerTemplateId: '987', name: 'cita', language: 'es', status: 'PENDING', category: 'UTILITY' });
      expect(seen[0]).toMatchObject({ path: '/v23.0/102290129340398/message_templates', body: { name: 'cita', category: 'UTILITY' } });
      await adapter.send(
        account,
        { to: '34600111222', template: { name: 'cita', language: 'es', bodyParameters: ['Ana'] }, callbackData: 'recipient-1' },
        { idempotencyKey: 'k' },
      );
      expect(seen[1]!.body).toMatchObject({ to: '34600111222', type: 'template', biz_opaque_callback_data: 'recipient-1' });
    } finally {
      server.close();
    }
  });
});
