/**
 * Named parameters and media headers (issue 21) between the WhatsApp adapter and the Cloud API fake:
 * the template as Meta takes it (parameter_format NAMED, body_text_named_params, header_handle from
 * the Resumable Upload API), and sends with parameter_name and a header medium, checked on the
 * fake's recorded wire format and on Meta's refusals.
 */
import { metaComponents, type ChannelTemplateInput } from '@centralita/contracts';
import { startWhatsAppFake, type WhatsAppFake } from '../../../../test/fakes/whatsapp-cloud';
import { ChannelError, type ChannelAccount, type ChannelAdapter } from '../adapter';
import { createWhatsAppAdapter } from './whatsapp.adapter';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('WhatsApp named and media templates ↔ fake', () => {
  let fake: WhatsAppFake;
  let adapter: ChannelAdapter;
  let account: ChannelAccount;

  beforeAll(async () => {
    fake = await startWhatsAppFake({ templates: [] });
    adapter = createWhatsAppAdapter({
      metaGraphUrl: fake.url,
      metaGraphVersion: fake.graphVersion,
      telegramApiUrl: 'http://127.0.0.1:9',
      xApiUrl: 'http://127.0.0.1:9',
    });
    account = {
      id: 'account-1',
      kind: 'whatsapp',
      externalAccountId: fake.phoneNumberId,
      settings: { wabaId: fake.wabaId, appId: fake.appId },
      secrets: { accessToken: fake.accessToken, appSecret: fake.appSecret },
      verifyToken: 'v',
    };
  });

  afterAll(() => fake.close());

  const create = (input: Omit<ChannelTemplateInput, 'accountId'>) =>
    adapter.createTemplate!(account, {
      name: input.name,
      language: input.language,
      category: input.category,
      parameterFormat: input.parameterFormat,
      components: metaComponents({ ...input, accountId: 'a' }),
    });

  /** Meta's approval without its webhook (this suite has no receiver). */
  const approve = (name: string) => {
    fake.templates.find((one) => one.name === name)!.status = 'APPROVED';
  };

  const providerError = async (work: Promise<unknown>): Promise<ChannelError> => {
    const error = await work.then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ChannelError);
    return error as ChannelError;
  };

  it('creates a NAMED template with parameter_format and body_text_named_params as Meta takes them', async () => {
    const created = await create({
      name: 'pedido_listo',
      language: 'es',
      category: 'UTILITY',
      parameterFormat: 'NAMED',
      body: { text: 'Hola {{first_name}}, tu pedido {{order_id}} está listo.', examples: ['Ana', 'A-1'] },
    });
    expect(created).toMatchObject({ status: 'PENDING', name: 'pedido_listo' });
    const request = fake.requests.find((one) => one.path.endsWith('/message_templates') && one.method === 'POST');
    expect(request).toBeDefined();
    expect(fake.templates.find((one) => one.name === 'pedido_listo')).toMatchObject({ parameterFormat: 'NAMED' });
  });

  it('is refused by Meta when a named example is missing', async () => {
    const error = await providerError(
      adapter.createTemplate!(account, {
        name: 'sin_ejemplo',
        language: 'es',
        category: 'UTILITY',
        parameterFormat: 'NAMED',
        components: [
          {
            type: 'BODY',
            text: 'Hola {{first_name}} {{last_name}}',
            example: { body_text_named_params: [{ param_name: 'first_name', example: 'Ana' }] },
          },
        ],
      }),
    );
    expect(error.details.code).toBe('100');
    expect(error.message).toContain('{{last_name}}');
  });

  it('sends each named value with its parameter_name and refuses a mismatched name with Meta’s 132012', async () => {
    approve('pedido_listo');
    const sent = await adapter.send(
      account,
      {
        to: '34600111333',
        template: {
          name: 'pedido_listo',
          language: 'es',
          bodyParameters: ['Marta', 'B-7'],
          parameterNames: { body: ['first_name', 'order_id'] },
        },
      },
      { idempotencyKey: 'k1' },
    );
    const message = fake.sent.find((one) => one.id === sent.providerMessageId)!;
    expect(message.template?.namedParameters).toEqual({ first_name: 'Marta', order_id: 'B-7' });
    expect((message.body.template as { components: unknown[] }).components).toEqual([
      {
        type: 'body',
        parameters: [
          { type: 'text', parameter_name: 'first_name', text: 'Marta' },
          { type: 'text', parameter_name: 'order_id', text: 'B-7' },
        ],
      },
    ]);

    const error = await providerError(
      adapter.send(
        account,
        {
          to: '34600111333',
          template: {
            name: 'pedido_listo',
            language: 'es',
            bodyParameters: ['Marta', 'B-7'],
            parameterNames: { body: ['first_name', 'order'] },
          },
        },
        { idempotencyKey: 'k2' },
      ),
    );
    expect(error.details).toMatchObject({ code: '132012', retryable: false, status: 400 });
    expect(error.message).toContain("parameter_name 'order'");
    // Positional values sent to a named template are refused too (no parameter_name).
    const positional = await providerError(
      adapter.send(
        account,
        { to: '34600111333', template: { name: 'pedido_listo', language: 'es', bodyParameters: ['Marta', 'B-7'] } },
        { idempotencyKey: 'k3' },
      ),
    );
    expect(positional.details.code).toBe('132012');
  });

  it('uploads an image sample through the Resumable Upload API and creates an IMAGE header template with its handle', async () => {
    const handle = await adapter.uploadTemplateSample!(account, { bytes: PNG, mimeType: 'image/png', fileName: 'oferta.png' });
    expect(fake.templateSamples).toEqual([expect.objectContaining({ handle, fileName: 'oferta.png', fileType: 'image/png' })]);
    expect(fake.templateSamples[0].bytes.equals(PNG)).toBe(true);
    const start = fake.requests.find((one) => one.path.endsWith(`/${fake.appId}/uploads`));
    expect(start?.query).toMatchObject({ file_name: 'oferta.png', file_length: String(PNG.length), file_type: 'image/png' });

    await create({
      name: 'oferta_imagen',
      language: 'es',
      category: 'MARKETING',
      parameterFormat: 'NAMED',
      header: { format: 'IMAGE', handle },
      body: { text: 'Hola {{first_name}}, mira la oferta.', examples: ['Ana'] },
    });
    expect(fake.templates.find((one) => one.name === 'oferta_imagen')).toMatchObject({ mediaHeader: 'IMAGE', headerHandle: handle });
  });

  it('refuses a media header template whose handle was never uploaded, and an upload without the app id', async () => {
    const error = await providerError(
      create({
        name: 'oferta_video',
        language: 'es',
        category: 'MARKETING',
        header: { format: 'VIDEO', handle: '4::bm90LXVwbG9hZGVk' },
        body: { text: 'Mira el vídeo.', examples: [] },
      }),
    );
    expect(error.message).toContain('header_handle');
    const noApp = await providerError(
      adapter.uploadTemplateSample!(
        { ...account, settings: { wabaId: fake.wabaId } },
        { bytes: PNG, mimeType: 'image/png', fileName: 'x.png' },
      ),
    );
    expect(noApp.details.code).toBe('missing_settings');
  });

  it("offers NAMED and media header templates to the desk's picker with their names, Meta's examples and the header's format", async () => {
    fake.templates.push({ name: 'aviso', language: 'es', category: 'UTILITY', status: 'APPROVED', body: 'Hola {{1}}' });
    approve('pedido_listo');
    approve('oferta_imagen');
    const offered = await adapter.listTemplates!(account);
    expect(offered.find((one) => one.name === 'aviso')).toMatchObject({
      parameterFormat: 'POSITIONAL',
      parameterCount: 1,
      bodyParameterNames: [],
      headerFormat: null,
    });
    expect(offered.find((one) => one.name === 'pedido_listo')).toMatchObject({
      parameterFormat: 'NAMED',
      parameterCount: 2,
      bodyParameterNames: ['first_name', 'order_id'],
      headerParameterNames: [],
      parameterExamples: { first_name: 'Ana', order_id: 'A-1' },
      headerFormat: null,
    });
    expect(offered.find((one) => one.name === 'oferta_imagen')).toMatchObject({
      parameterFormat: 'NAMED',
      parameterCount: 1,
      bodyParameterNames: ['first_name'],
      headerText: null,
      headerParameterCount: 0,
      headerFormat: 'IMAGE',
    });
  });

  it('sends an image header by link and refuses the send without the medium (132012)', async () => {
    approve('oferta_imagen');
    const sent = await adapter.send(
      account,
      {
        to: '34600111444',
        template: {
          name: 'oferta_imagen',
          language: 'es',
          bodyParameters: ['Luis'],
          parameterNames: { body: ['first_name'] },
          headerMedia: { kind: 'image', link: 'https://cdn.example.com/oferta.png' },
        },
      },
      { idempotencyKey: 'k4' },
    );
    const message = fake.sent.find((one) => one.id === sent.providerMessageId)!;
    expect(message.template?.headerMedia).toEqual({ type: 'image', link: 'https://cdn.example.com/oferta.png' });
    expect((message.body.template as { components: unknown[] }).components[0]).toEqual({
      type: 'header',
      parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/oferta.png' } }],
    });

    const missing = await providerError(
      adapter.send(
        account,
        {
          to: '34600111444',
          template: { name: 'oferta_imagen', language: 'es', bodyParameters: ['Luis'], parameterNames: { body: ['first_name'] } },
        },
        { idempotencyKey: 'k5' },
      ),
    );
    expect(missing.details.code).toBe('132012');
    expect(missing.message).toContain('IMAGE');
  });
});
