import { randomInt } from 'node:crypto';
import type { ChannelAccountView, ChannelTemplateView, MessageCampaignView } from '@centralita/contracts';
import { eventually as eventuallyWithin } from '../../../../test/support/eventually';
import type { WhatsAppFake } from '../../../../test/fakes/whatsapp-cloud';
import type { ChildWorker } from '../support/processes';
import { data } from '../support/realtime';
import type { TestApp } from '../support/test-app';
import {
  channelDesk,
  channelSuite,
  startChannelApi,
  startChannelSendWorker,
  stopChild,
  type ChannelDesk,
  type ChannelSuite,
} from '../channels/support/channel-e2e';
import {
  campaignHttp,
  connectWhatsAppAccount,
  insertPhoneList,
  metaId,
  startCampaignWhatsAppFake,
  submitAndApprove,
} from './campaign-fixtures';

/**
 * Issue 21, named parameters, media headers and the test send, end to end: the real API and worker
 * against the Cloud API fake (which checks parameter_name, the header medium and the Resumable Upload
 * API's sample handle as Meta does), on PostgreSQL and Redis.
 */
jest.setTimeout(180_000);
const STARTUP_TIMEOUT_MS = 120_000;
const eventually = <T>(assertion: () => T | Promise<T>, timeoutMs = 60_000) => eventuallyWithin(assertion, { timeoutMs, intervalMs: 200 });

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4a40000000049454e44ae426082',
  'hex',
);
const IMAGE_LINK = 'https://cdn.example.com/promos/verano.png';

describe('WhatsApp named parameters, media headers and test send', () => {
  let wa: WhatsAppFake;
  let suite: ChannelSuite;
  let api: TestApp;
  let worker: ChildWorker | undefined;
  let desk: ChannelDesk;
  let account: ChannelAccountView;
  const prefix = `347${randomInt(100, 999)}`;
  const phoneOf = (index: number) => `+${prefix}${String(index).padStart(5, '0')}`;
  const internal = `+${prefix}99999`;

  beforeAll(async () => {
    wa = await startCampaignWhatsAppFake({ appId: metaId() });
    suite = channelSuite('tplnamed', { META_GRAPH_URL: wa.url, META_GRAPH_VERSION: wa.graphVersion });
    await Promise.all([
      startChannelApi(suite).then((started) => (api = started)),
      startChannelSendWorker(suite).then((started) => (worker = started)),
    ]);
    desk = await channelDesk(api);
    account = await connectWhatsAppAccount(api, desk, wa, 'Plantillas con nombre', {
      appId: wa.appId,
      testNumbers: `${internal}, +34 600 000 001`,
    });
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    await stopChild(worker);
    await api?.close();
    await wa?.close();
  });

  const http = campaignHttp(() => ({ api, desk }));
  const { admin, post, get } = http;
  const uploadSample = (format: string, contentType: string, bytes: Buffer, fileName = 'verano.png') =>
    api
      .http()
      .post(`/api/message-templates/samples?accountId=${account.id}&format=${format}&fileName=${fileName}`)
      .set(admin())
      .set('Content-Type', contentType)
      .send(bytes);

  const approve = async (draft: ChannelTemplateView): Promise<ChannelTemplateView> => {
    const { submitted, approved } = await submitAndApprove(http, wa, draft, eventually);
    expect(data<ChannelTemplateView>(submitted).status).toBe('PENDING');
    return approved;
  };

  /** An IMAGE header, NAMED body template, from a sample uploaded through the API. */
  const imageTemplate = async (name: string): Promise<ChannelTemplateView> => {
    const sample = data<{ handle: string }>(await uploadSample('IMAGE', 'image/png', PNG));
    return data<ChannelTemplateView>(
      await post('/api/message-templates', {
        accountId: account.id,
        name,
        language: 'es',
        category: 'MARKETING',
        parameterFormat: 'NAMED',
        header: { format: 'IMAGE', handle: sample.handle },
        body: { text: 'Hola {{first_name}}, tu código es {{promo_code}}.', examples: ['Ana', 'VERANO10'] },
        footer: 'Centralita',
      }),
    );
  };

  it('checks named parameters and media samples as Meta does, naming the field (400/415)', async () => {
    const badName = await post('/api/message-templates', {
      accountId: account.id,
      name: 'nombre_malo',
      language: 'es',
      category: 'UTILITY',
      parameterFormat: 'NAMED',
      body: { text: 'Hola {{FirstName}}', examples: ['Ana'] },
    });
    expect(badName.status).toBe(400);
    expect(JSON.stringify(badName.body)).toContain('{{FirstName}} is not a named parameter');
    const noExample = await post('/api/message-templates', {
      accountId: account.id,
      name: 'sin_ejemplo',
      language: 'es',
      category: 'UTILITY',
      parameterFormat: 'NAMED',
      body: { text: 'Hola {{first_name}} {{last_name}}', examples: ['Ana'] },
    });
    expect(noExample.status).toBe(400);
    expect(JSON.stringify(noExample.body)).toContain('body.examples');
    const wrongType = await uploadSample('IMAGE', 'application/pdf', Buffer.from('%PDF-1.4'));
    expect(wrongType.status).toBe(400);
    expect(JSON.stringify(wrongType.body)).toContain('image sample must be image/jpeg or image/png');
    const notAFile = await uploadSample('IMAGE', 'text/html', Buffer.from('<b>x</b>'));
    expect(notAFile.status).toBe(415);
    const tooBig = await uploadSample('IMAGE', 'image/png', Buffer.alloc(5 * 1024 * 1024 + 1));
    expect(tooBig.status).toBe(413);
    expect(wa.templateSamples).toHaveLength(0);
  });

  it('creates an IMAGE header template with named parameters, previews it and test sends it to an internal number only', async () => {
    const name = `promo_${randomInt(1e6, 9e6)}`;
    const draft = await imageTemplate(name);
    expect(draft).toMatchObject({
      status: 'DRAFT',
      parameterFormat: 'NAMED',
      headerFormat: 'IMAGE',
      bodyParameters: ['first_name', 'promo_code'],
      bodyParameterCount: 2,
      headerParameterCount: 0,
    });
    expect(wa.templateSamples).toHaveLength(1);

    // Not approved yet: refused with the reason.
    const early = await post(`/api/message-templates/${draft.id}/test-send`, {
      to: internal,
      body: ['Ana', 'X'],
      headerMedia: { link: IMAGE_LINK },
    });
    expect(early.status).toBe(409);
    expect(JSON.stringify(early.body)).toContain('only approved templates');

    const template = await approve(draft);
    const created = wa.templates.find((one) => one.name === name)!;
    expect(created).toMatchObject({ parameterFormat: 'NAMED', mediaHeader: 'IMAGE', headerHandle: wa.templateSamples[0]!.handle });

    const preview = data<{ header: string; body: string }>(
      await post(`/api/message-templates/${template.id}/preview`, { body: ['Luis', 'V5'] }),
    );
    expect(preview).toMatchObject({ header: '[IMAGE]', body: 'Hola Luis, tu código es V5.' });

    expect(data<string[]>(await get(`/api/message-templates/test-numbers?accountId=${account.id}`))).toEqual([
      internal.slice(1),
      '34600000001',
    ]);
    const outsider = await post(`/api/message-templates/${template.id}/test-send`, {
      to: phoneOf(1),
      body: ['Ana', 'X'],
      headerMedia: { link: IMAGE_LINK },
    });
    expect(outsider.status).toBe(400);
    expect(JSON.stringify(outsider.body)).toContain('internal test numbers');
    const noMedia = await post(`/api/message-templates/${template.id}/test-send`, { to: internal, body: ['Ana', 'X'] });
    expect(noMedia.status).toBe(400);
    expect(JSON.stringify(noMedia.body)).toContain('headerMedia is required');
    const wrongKind = await post(`/api/message-templates/${template.id}/test-send`, {
      to: internal,
      body: ['Ana', 'X'],
      headerMedia: { link: 'https://cdn.example.com/promo.mp4' },
    });
    expect(wrongKind.status).toBe(400);
    expect(JSON.stringify(wrongKind.body)).toContain('jpg, jpeg, png');

    const result = data<{ rendered: { body: string }; providerMessageId: string | null; error: unknown }>(
      await post(`/api/message-templates/${template.id}/test-send`, {
        to: internal,
        body: ['Ana', 'VERANO10'],
        headerMedia: { link: IMAGE_LINK },
      }),
    );
    expect(result).toMatchObject({
      rendered: { body: 'Hola Ana, tu código es VERANO10.' },
      providerMessageId: expect.any(String),
      error: null,
    });
    const sent = wa.sent.find((one) => one.id === result.providerMessageId)!;
    expect(sent.template).toMatchObject({
      namedParameters: { first_name: 'Ana', promo_code: 'VERANO10' },
      headerMedia: { type: 'image', link: IMAGE_LINK },
    });

    // The provider's refusal comes back as its code and text, not as an API error.
    wa.failNext(
      1,
      { status: 400, code: 131026, message: '(#131026) Message undeliverable', details: 'Message Undeliverable.' },
      { path: '/messages' },
    );
    const refused = data<{ providerMessageId: string | null; error: { code: string; message: string } }>(
      await post(`/api/message-templates/${template.id}/test-send`, {
        to: internal,
        body: ['Ana', 'X'],
        headerMedia: { link: IMAGE_LINK },
      }),
    );
    expect(refused.providerMessageId).toBeNull();
    expect(refused.error).toMatchObject({ code: '131026', message: expect.stringContaining('Message Undeliverable') });
  });

  it('runs a campaign with named parameters and an image header: every recipient gets parameter_name values and the image', async () => {
    const template = await approve(await imageTemplate(`promo_campana_${randomInt(1e6, 9e6)}`));
    const phones = Array.from({ length: 25 }, (_, index) => phoneOf(index + 1));
    const listId = await insertPhoneList(api, desk.tenantId, `Promo ${prefix}`, phones);
    const input = {
      name: 'Promo de verano',
      accountId: account.id,
      templateId: template.id,
      phoneListId: listId,
      parameterMapping: { header: [], body: [{ source: 'name' }, { source: 'fixed', value: 'VERANO10' }] },
      ratePerSecond: 50,
    };
    const withoutImage = await post('/api/message-campaigns', input);
    expect(withoutImage.status).toBe(400);
    expect(JSON.stringify(withoutImage.body)).toContain('headerMedia is required');
    const httpImage = await post('/api/message-campaigns', { ...input, headerMedia: { link: 'http://cdn.example.com/a.png' } });
    expect(httpImage.status).toBe(400);
    expect(JSON.stringify(httpImage.body)).toContain('headerMedia.link must be an https URL');

    // The medium can also be a file uploaded once to WhatsApp (type and size checked first): sent by its media id.
    const uploadHeader = (contentType: string, bytes: Buffer) =>
      api
        .http()
        .post(`/api/message-templates/header-media?accountId=${account.id}&format=IMAGE&fileName=verano.png`)
        .set(admin())
        .set('Content-Type', contentType)
        .send(bytes);
    const pdfAsImage = await uploadHeader('application/pdf', Buffer.from('%PDF-1.4'));
    expect(pdfAsImage.status).toBe(400);
    expect(JSON.stringify(pdfAsImage.body)).toContain('image header must be image/jpeg or image/png');
    const uploaded = data<{ id: string }>(await uploadHeader('image/png', PNG));
    expect(wa.uploads.find((one) => one.id === uploaded.id)).toMatchObject({ mimeType: 'image/png', fileName: 'verano.png' });
    const byId = data<MessageCampaignView>(await post('/api/message-campaigns', { ...input, headerMedia: { id: uploaded.id } }));
    expect(byId.headerMedia).toEqual({ id: uploaded.id });

    const campaign = data<MessageCampaignView>(await post('/api/message-campaigns', { ...input, headerMedia: { link: IMAGE_LINK } }));
    expect(campaign.headerMedia).toEqual({ link: IMAGE_LINK });
    data<MessageCampaignView>(await post(`/api/message-campaigns/${campaign.id}/start`));
    const finished = await eventually(async () => {
      const view = data<MessageCampaignView>(await get(`/api/message-campaigns/${campaign.id}`));
      expect(view.status).toBe('finished');
      return view;
    });
    expect(finished.counts).toMatchObject({ total: 25, sent: 25, failed: 0 });
    const sends = wa.sent.filter((message) => phones.includes(message.to) && message.template?.name === template.name);
    expect(sends).toHaveLength(25);
    for (const message of sends) {
      const row = phones.indexOf(message.to) + 1;
      expect(message.template).toMatchObject({
        namedParameters: { first_name: `Cliente ${row}`, promo_code: 'VERANO10' },
        headerMedia: { type: 'image', link: IMAGE_LINK },
      });
    }

    // The same list again with the uploaded image: each recipient gets it by media id.
    data<MessageCampaignView>(await post(`/api/message-campaigns/${byId.id}/start`));
    await eventually(async () => {
      const view = data<MessageCampaignView>(await get(`/api/message-campaigns/${byId.id}`));
      expect(view).toMatchObject({ status: 'finished', counts: { total: 25, sent: 25 } });
    });
    const byIdSends = wa.sent.filter((message) => phones.includes(message.to) && message.template?.headerMedia?.id === uploaded.id);
    expect(byIdSends).toHaveLength(25);
  });
});
