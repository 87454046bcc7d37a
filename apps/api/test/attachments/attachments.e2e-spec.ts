import { randomUUID } from 'node:crypto';
import type { MessageView, StartChatResult } from '@centralita/contracts';
import { createLine, createStaff, createTenant, data, type StaffMember } from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

jest.setTimeout(60_000);

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('IHDR-test-image-bytes')]);
const PDF = Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

/** Web-chat attachments: agents' and visitors' uploads (checked by content and size), downloads scoped to tenant and conversation. */
describe('attachments', () => {
  let t: TestApp;
  let agent: StaffMember;
  let supervisor: StaffMember;
  let tenantId: string;
  let lineId: string;

  beforeAll(async () => {
    t = await startTestApp();
    const tenant = await createTenant(t.dataSource);
    tenantId = tenant.client.id;
    lineId = await createLine(t.dataSource, tenant, `Files ${randomUUID().slice(0, 8)}`);
    agent = await createStaff(t, tenant, 'AGENT', [lineId]);
    supervisor = await createStaff(t, tenant, 'SUPER');
  });
  afterAll(() => t.close());

  /**
   * A web-chat conversation started as a visitor starts one (the machine's own snapshot), then
   * marked as held by the agent: the agent may write to it, and the visitor's messages step its machine.
   */
  async function chat(): Promise<{ id: string; visitorToken: string }> {
    const started = data<StartChatResult>(await t.http().post('/api/webchat/conversations').send({ attentionLineId: lineId, name: 'Eva' }));
    await t.dataSource.query(`UPDATE conversations SET status = 'Active', agent_id = $2 WHERE id = $1`, [
      started.conversation.id,
      agent.userId,
    ]);
    return { id: started.conversation.id, visitorToken: started.visitorToken };
  }

  const messageCount = async (conversationId: string) =>
    (
      (await t.dataSource.query(`SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1`, [conversationId])) as { n: number }[]
    )[0]!.n;
  const fileCount = async () =>
    ((await t.dataSource.query(`SELECT count(*)::int AS n FROM stored_files WHERE tenant_id = $1`, [tenantId])) as { n: number }[])[0]!.n;

  const agentUpload = (conversationId: string, bytes: Buffer, name: string, type: string, fields: Record<string, string> = {}) => {
    const call = t.http().post(`/api/conversations/${conversationId}/attachments`).set(bearer(agent.token));
    for (const [field, value] of Object.entries(fields)) void call.field(field, value);
    return call.attach('file', bytes, { filename: name, contentType: type });
  };
  const download = (url: string, token: string) =>
    t
      .http()
      .get(url)
      .set(bearer(token))
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });

  it('stores an agent’s image with its caption and a safe name, and serves it inline with nosniff and a sandboxing CSP', async () => {
    const { id } = await chat();
    const message = data<MessageView>(await agentUpload(id, PNG, '..\\..\\etc\\pho*to|1.png', 'image/png', { caption: 'Aquí está' }));
    expect(message).toMatchObject({ text: 'Aquí está', senderKind: 'agent', deliveryStatus: null });
    expect(message.attachments).toEqual([
      {
        id: expect.any(String),
        kind: 'image',
        fileName: 'pho_to_1.png',
        mimeType: 'image/png',
        size: PNG.length,
        url: `/api/attachments/${message.attachments[0]!.id}`,
      },
    ]);
    // Lists carry the attachments too.
    const listed = data<MessageView[]>(await t.http().get(`/api/agent/conversations/${id}/messages`).set(bearer(agent.token)));
    expect(listed.at(-1)!.attachments).toEqual(message.attachments);

    const response = await download(message.attachments[0]!.url, agent.token);
    expect(response.status).toBe(200);
    expect(Buffer.compare(response.body as Buffer, PNG)).toBe(0);
    expect(response.headers['content-type']).toBe('image/png');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-disposition']).toMatch(/^inline; filename="pho_to_1.png"/);
    expect(response.headers['content-security-policy']).toMatch(/default-src 'none'.*sandbox/);
  });

  it('serves a document as a download, never inline', async () => {
    const { id } = await chat();
    const message = data<MessageView>(await agentUpload(id, PDF, 'factura.pdf', 'application/pdf'));
    expect(message).toMatchObject({ text: '', attachments: [{ kind: 'document', mimeType: 'application/pdf' }] });
    const response = await download(message.attachments[0]!.url, agent.token);
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="factura.pdf"/);
  });

  it('refuses content that is not what it is declared as (400) and stores nothing', async () => {
    const { id } = await chat();
    const files = await fileCount();
    const html = await agentUpload(id, Buffer.from('<html><script>alert(1)</script></html>'), 'cat.png', 'image/png');
    expect(html.status).toBe(400);
    expect(html.body.errorMessage).toMatch(/not an accepted type/);
    const mislabelled = await agentUpload(id, PDF, 'cat.png', 'image/png');
    expect(mislabelled.status).toBe(400);
    expect(mislabelled.body.errorMessage).toBe('The file is declared as image/png but its content is a PDF document');
    const svg = await agentUpload(
      id,
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      'x.svg',
      'image/svg+xml',
    );
    expect(svg.status).toBe(400);
    const executable = await agentUpload(id, Buffer.from('MZ\x90\x00\x03\x00\x00\x00'), 'setup.pdf', 'application/pdf');
    expect(executable.status).toBe(400);
    const none = await t.http().post(`/api/conversations/${id}/attachments`).set(bearer(agent.token)).field('caption', 'sin archivo');
    expect(none.status).toBe(400);
    expect(await messageCount(id)).toBe(0);
    expect(await fileCount()).toBe(files);
  });

  it('refuses a file over ATTACHMENT_MAX_BYTES (413)', async () => {
    const { id } = await chat();
    const files = await fileCount();
    const tooLarge = Buffer.concat([PNG, Buffer.alloc(16 * 1024 * 1024)]);
    const response = await agentUpload(id, tooLarge, 'huge.png', 'image/png');
    expect(response.status).toBe(413);
    expect(await messageCount(id)).toBe(0);
    expect(await fileCount()).toBe(files);
  });

  it('answers 404 for another tenant’s attachment, and for a conversation the agent does not hold', async () => {
    const { id } = await chat();
    const message = data<MessageView>(await agentUpload(id, PNG, 'a.png', 'image/png'));
    const stranger = await createStaff(t, await createTenant(t.dataSource), 'AGENT');
    expect((await download(message.attachments[0]!.url, stranger.token)).status).toBe(404);
    expect(
      (await t.http().post(`/api/conversations/${id}/attachments`).set(bearer(stranger.token)).attach('file', PNG, 'a.png')).status,
    ).toBe(404);
    expect((await download(`/api/attachments/${randomUUID()}`, agent.token)).status).toBe(404);
  });

  it('lets a visitor send a file and read the files of their own conversation only', async () => {
    const mine = await chat();
    const theirs = await chat();
    // First, while the agent holds it (the visitor's message then steps the conversation's own machine).
    const fromAgent = data<MessageView>(await agentUpload(mine.id, PNG, 'respuesta.png', 'image/png'));
    const upload = await t
      .http()
      .post('/api/webchat/conversation/attachments')
      .set(bearer(mine.visitorToken))
      .field('caption', 'mi recibo')
      .attach('file', PDF, { filename: 'recibo.pdf', contentType: 'application/pdf' });
    const sent = data<MessageView>(upload);
    expect(sent).toMatchObject({ senderKind: 'customer', text: 'mi recibo', attachments: [{ kind: 'document', fileName: 'recibo.pdf' }] });

    const own = `/api/webchat/conversation/attachments/${sent.attachments[0]!.id}`;
    const agents = `/api/webchat/conversation/attachments/${fromAgent.attachments[0]!.id}`;
    const ownResponse = await download(own, mine.visitorToken);
    expect(ownResponse.status).toBe(200);
    expect(Buffer.compare(ownResponse.body as Buffer, PDF)).toBe(0);
    expect(ownResponse.headers['x-content-type-options']).toBe('nosniff');
    expect((await download(agents, mine.visitorToken)).status).toBe(200);
    // Another visitor, even of the same tenant, gets nothing of this conversation.
    expect((await download(own, theirs.visitorToken)).status).toBe(404);
    expect((await download(agents, theirs.visitorToken)).status).toBe(404);
    // Staff see the visitor's file (a supervisor: the fixture's agent no longer holds it once the visitor's message stepped the machine).
    expect((await download(sent.attachments[0]!.url, supervisor.token)).status).toBe(200);
    const wrong = await t
      .http()
      .post('/api/webchat/conversation/attachments')
      .set(bearer(mine.visitorToken))
      .attach('file', Buffer.from('#!/bin/sh\nrm -rf /'), { filename: 'run.pdf', contentType: 'application/pdf' });
    expect(wrong.status).toBe(400);
  });
});
