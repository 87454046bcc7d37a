import { randomBytes } from 'node:crypto';
import type { ChannelAccountView, ChannelTemplateView, MessageCampaignView, RenderedEmail } from '@centralita/contracts';
import { UnsubscribeSigner } from '@centralita/contracts/server';
import { startDovecot, type RunningDovecot } from '../../../../test/support/dovecot';
import { eventually as eventuallyWithin } from '../../../../test/support/eventually';
import {
  accountConversations,
  channelDesk,
  channelSuite,
  connectChannelAccount,
  startChannelApi,
  startChannelSendWorker,
  stopChild,
  type ChannelDesk,
} from '../channels/support/channel-e2e';
import { localMailSettings } from '../email/support/mail-account';
import { customerMessageId, rawMail } from '../email/support/mails';
import { startSmtpPeer, type ReceivedMail, type SmtpPeer } from '../email/support/smtp-peer';
import type { ChildWorker } from '../support/processes';
import { data } from '../support/realtime';
import { bearer, type TestApp } from '../support/test-app';
import { CAMPAIGN_WORKER_ENV, campaignHttp } from './campaign-fixtures';

/**
 * Issue 21, email campaigns end to end: an email template (no review), a campaign over a phone list
 * whose `email` column is the address, sent by the real worker (child process) through the email
 * channel's SMTP sender to the smtp-server peer, with the List-Unsubscribe headers; a customer's
 * reply read from Dovecot threads into a conversation linked to the campaign; a worker killed right
 * after the server took a mail sends nobody twice. Counts are of this suite's own rows.
 */
jest.setTimeout(240_000);
const eventually = <T>(assertion: () => T | Promise<T>, timeoutMs = 60_000) => eventuallyWithin(assertion, { timeoutMs, intervalMs: 200 });

/** The short campaign windows (CAMPAIGN_WORKER_ENV) and a short retry of a refused mail. */
const WORKER_ENV = { ...CAMPAIGN_WORKER_ENV, EMAIL_CAMPAIGN_RETRY_MS: '200' };

describe('Email campaigns (an email template to a phone list, through the email channel)', () => {
  const run = randomBytes(4).toString('hex');
  const domain = `campanas-${run}.test`;
  const mailbox = `ofertas@${domain}`;
  const mailboxPassword = `imap-${run}`;
  const smtpUser = `smtp-${run}`;
  const smtpPassword = `smtp-pass-${run}`;
  const suite = channelSuite('email-campaigns', {
    OUTGOING_ALLOWED_CIDRS: '127.0.0.0/8',
    EMAIL_POLL_MS: '400',
    EMAIL_ACCOUNTS_REFRESH_MS: '300',
    EMAIL_RETRY_MS: '300',
    EMAIL_LEASE_MS: '2000',
  });
  const signer = new UnsubscribeSigner(process.env);
  let dovecot: RunningDovecot;
  let smtp: SmtpPeer;
  let api: TestApp;
  let worker: ChildWorker | undefined;
  let desk: ChannelDesk;
  let account: ChannelAccountView;

  beforeAll(async () => {
    dovecot = await startDovecot();
    dovecot.addUser(mailbox, mailboxPassword);
    smtp = await startSmtpPeer({ user: smtpUser, password: smtpPassword });
    api = await startChannelApi(suite);
    worker = await startChannelSendWorker(suite, WORKER_ENV);
    desk = await channelDesk(api);
    account = await connectChannelAccount(api, desk, {
      kind: 'email',
      name: `Ofertas ${run}`,
      externalAccountId: mailbox,
      settings: {
        ...localMailSettings(dovecot, smtp, smtpUser),
        fromName: 'Ofertas',
        campaignPerMinute: '6000',
      },
      secrets: { imapPassword: mailboxPassword, smtpPassword },
    });
  }, 180_000);

  afterAll(async () => {
    await stopChild(worker);
    await api?.close();
    await smtp?.close();
    await dovecot?.close();
  });

  const { post, get, board } = campaignHttp(() => ({ api, desk }));
  const receivedFor = (customerDomain: string): ReceivedMail[] =>
    smtp.received.filter((mail) => mail.envelope.to.some((to) => to.endsWith(`@${customerDomain}`)));

  /** A phone list with an email and a city column (as an import with a header row stores them). */
  const phoneList = async (name: string, rows: { phone: string; email: string; city: string }[]): Promise<string> => {
    const [list] = (await api.dataSource.query(`INSERT INTO phone_lists (client_id, name, entry_count) VALUES ($1, $2, $3) RETURNING id`, [
      desk.tenantId,
      name,
      rows.length,
    ])) as { id: string }[];
    await api.dataSource.query(
      `INSERT INTO phone_list_entries (list_id, client_id, phone, name, line, fields)
       SELECT $1, $2, phone, 'Cliente ' || ord, ord + 1, jsonb_build_object('email', email, 'ciudad', city)
       FROM unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS t(phone, email, city, ord)`,
      [list!.id, desk.tenantId, rows.map((row) => row.phone), rows.map((row) => row.email), rows.map((row) => row.city)],
    );
    return list!.id;
  };
  const phoneOf = (index: number) =>
    `+3491${String(parseInt(run.slice(0, 3), 16) % 1000).padStart(3, '0')}${String(index).padStart(4, '0')}`;

  const emailTemplate = async (name: string): Promise<ChannelTemplateView> =>
    data<ChannelTemplateView>(
      await post('/api/message-templates', {
        accountId: account.id,
        name,
        language: 'es',
        subject: 'Hola {{1}}, novedades',
        html: '<p>Hola <b>{{1}}</b>, abrimos tienda en {{2}}.</p>',
        examples: ['Ana', 'Sevilla'],
      }),
    );

  it('stores an email template usable at once, checks it (400 naming the field), previews it and keeps it from other tenants (404)', async () => {
    const accounts = data<{ id: string; kind: string }[]>(await get('/api/message-templates/accounts'));
    expect(accounts).toContainEqual(expect.objectContaining({ id: account.id, kind: 'email' }));
    const base = {
      accountId: account.id,
      name: `plantilla_${run}`,
      language: 'es',
      subject: 'Hola {{1}}',
      text: 'Hola {{1}}',
      examples: ['Ana'],
    };
    const noSubject = await post('/api/message-templates', { ...base, subject: ' ' });
    expect(noSubject.status).toBe(400);
    expect(noSubject.body.errorMessage).toMatch(/subject is required/);
    const noBody = await post('/api/message-templates', { ...base, text: '', html: '' });
    expect(noBody.status).toBe(400);
    expect(noBody.body.errorMessage).toMatch(/body is required/);
    const gap = await post('/api/message-templates', { ...base, text: 'Hola {{1}} y {{3}}', examples: ['Ana', 'B'] });
    expect(gap.status).toBe(400);
    expect(gap.body.errorMessage).toMatch(/without gaps/);
    const noExample = await post('/api/message-templates', { ...base, examples: [] });
    expect(noExample.body.errorMessage).toMatch(/examples must give one example for each of the 1 parameters/);
    expect((await post('/api/message-templates', { ...base, subject: 'Hola\r\nBcc: x@y.z' })).status).toBe(400);

    const template = await emailTemplate(`bienvenida_${run}`);
    expect(template).toMatchObject({ status: 'APPROVED', category: 'EMAIL', bodyParameterCount: 2, headerParameterCount: 0 });
    const preview = data<RenderedEmail>(await post(`/api/message-templates/${template.id}/preview`, { body: ['<i>Luis</i>', 'Cádiz'] }));
    expect(preview).toEqual({
      subject: 'Hola <i>Luis</i>, novedades',
      html: '<p>Hola <b>&lt;i&gt;Luis&lt;/i&gt;</b>, abrimos tienda en Cádiz.</p>',
      text: 'Hola <i>Luis</i>, abrimos tienda en Cádiz.',
    });
    expect(data<RenderedEmail>(await post(`/api/message-templates/${template.id}/preview`)).subject).toBe('Hola Ana, novedades');
    expect((await post(`/api/message-templates/${template.id}/submit`)).status).toBe(409);
    const other = await channelDesk(api);
    expect((await api.http().get(`/api/message-templates/${template.id}`).set(bearer(other.adminToken))).status).toBe(404);
  });

  it('sends to a 300-row list with exact counts, skips with reasons, List-Unsubscribe headers, a reply linked to the campaign, and the export', async () => {
    const customers = `clientes-${run}.test`;
    const rows = Array.from({ length: 300 }, (_, index) => ({
      phone: phoneOf(index + 1),
      email: `c${index + 1}@${customers}`,
      city: `Ciudad ${index + 1}`,
    }));
    rows[9]!.email = 'not-an-address';
    rows[10]!.email = '';
    rows[19]!.email = `C1@${customers.toUpperCase()}`; // the first row's address again
    rows[29]!.email = `listed-${run}@${customers}`;
    rows[39]!.email = `gone-${run}@${customers}`;
    await api.dataSource.query(
      `INSERT INTO mail_blacklist (tenant_id, address, reason, source) VALUES ($1, $2, 'manual', 'admin'), ($1, $3, 'unsubscribe', 'link')`,
      [desk.tenantId, rows[29]!.email, rows[39]!.email],
    );
    const listId = await phoneList(`Email ${run}`, rows);
    expect(data<string[]>(await get(`/api/message-campaign-lists/${listId}/columns`))).toEqual(['ciudad', 'email']);
    const template = await emailTemplate(`novedades_${run}`);
    const input = {
      name: 'Novedades por email',
      accountId: account.id,
      templateId: template.id,
      phoneListId: listId,
      addressColumn: 'email',
      parameterMapping: { header: [], body: [{ source: 'name' }, { source: 'column', value: 'ciudad' }] },
    };
    const noColumn = await post('/api/message-campaigns', { ...input, addressColumn: 'correo' });
    expect(noColumn.status).toBe(400);
    expect(noColumn.body.errorMessage).toMatch(/addressColumn: the list has no column "correo"/);
    const badMapping = await post('/api/message-campaigns', { ...input, parameterMapping: { body: [{ source: 'name' }] } });
    expect(badMapping.body.errorMessage).toMatch(/parameterMapping.body must map the template's 2 parameters/);
    const campaign = data<MessageCampaignView>(await post('/api/message-campaigns', input));
    expect(campaign).toMatchObject({ status: 'draft', channel: 'email', addressColumn: 'email' });

    // The first mail is refused for good (550): that recipient fails with the server's code and text.
    smtp.refuseNext = { code: 550, message: '5.1.1 Mailbox unknown' };
    const started = data<MessageCampaignView>(await post(`/api/message-campaigns/${campaign.id}/start`));
    expect(started.counts.total).toBe(300);
    expect(started.skipped).toEqual({ invalid_address: 2, duplicate: 1, mail_blacklisted: 1, unsubscribed: 1 });

    const finished = await eventually(async () => {
      const view = await board(campaign.id);
      expect(view.status).toBe('finished');
      return view;
    }, 120_000);
    expect(finished.counts).toMatchObject({ total: 300, queued: 0, sending: 0, sent: 294, failed: 1, skipped: 5 });
    // Paced at the account's 6,000 a minute (100 a second): three batches take two seconds at least.
    expect(Date.parse(finished.finishedAt!) - Date.parse(finished.startedAt!)).toBeGreaterThanOrEqual(2000);
    const failed = data<{ items: { address: string; errorCode: string; errorText: string }[] }>(
      await get(`/api/message-campaigns/${campaign.id}/recipients?status=failed`),
    );
    // 5.1.1 is the address itself: it joins the mail blacklist as a hard bounce.
    expect(
      await api.dataSource.query(`SELECT reason, source FROM mail_blacklist WHERE tenant_id = $1 AND address = $2`, [
        desk.tenantId,
        `c1@${customers}`,
      ]),
    ).toEqual([{ reason: 'hard_bounce', source: 'smtp' }]);
    expect(failed.items).toEqual([
      expect.objectContaining({ address: `c1@${customers}`, errorCode: '550', errorText: expect.stringMatching(/Mailbox unknown/) }),
    ]);

    const mails = receivedFor(customers);
    // The refused one was never taken: 294 accepted, each address exactly once.
    expect(mails).toHaveLength(294);
    expect(new Set(mails.map((mail) => mail.envelope.to[0])).size).toBe(294);
    const c5 = mails.find((mail) => mail.envelope.to[0] === `c5@${customers}`)!;
    expect(c5.parsed.subject).toBe('Hola Cliente 5, novedades');
    expect(c5.parsed.html).toContain('abrimos tienda en Ciudad 5.');
    expect(c5.parsed.text).toContain('Hola Cliente 5, abrimos tienda en Ciudad 5.');
    expect(c5.header('List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    const unsubscribe = c5.header('List-Unsubscribe')!;
    const link = /^<(https?:\/\/[^>]+)>,\s*<mailto:unsubscribe@([^?>]+)\?subject=([^>]+)>$/.exec(unsubscribe);
    expect(link).not.toBeNull();
    expect(link![2]).toBe(domain);
    const url = new URL(link![1]!);
    expect(decodeURIComponent(url.pathname)).toBe(`/session/Unsubscribe/c5@${customers}`);
    expect(signer.verify(url.searchParams.get('token')!, `c5@${customers}`)).toEqual({ tenantId: desk.tenantId });
    const [row] = (await api.dataSource.query(
      `SELECT provider_message_id, status FROM message_campaign_recipients WHERE campaign_id = $1 AND address = $2`,
      [campaign.id, `c5@${customers}`],
    )) as { provider_message_id: string; status: string }[];
    expect(row).toEqual({ provider_message_id: c5.parsed.messageId, status: 'sent' });

    // The one-click link works: the recipient is listed, and a later campaign would skip them.
    const oneClick = await api
      .http()
      .post(`${url.pathname}${url.search}`)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('List-Unsubscribe=One-Click');
    expect(oneClick.status).toBe(200);

    // The customer replies: In-Reply-To names the campaign mail; it opens a conversation on the account's line, linked to the campaign.
    await dovecot.append(
      mailbox,
      mailboxPassword,
      rawMail({
        from: `c7@${customers}`,
        fromName: 'Cliente 7',
        to: mailbox,
        subject: 'Re: Hola Cliente 7, novedades',
        messageId: customerMessageId(customers),
        text: '¿Abrís también los domingos?',
        inReplyTo: mails.find((mail) => mail.envelope.to[0] === `c7@${customers}`)!.parsed.messageId!,
      }),
    );
    const conversation = await eventually(async () => {
      const found = (await accountConversations(api.dataSource, account.id)).find((one) => one.contact === `c7@${customers}`);
      expect(found).toBeDefined();
      return found!;
    });
    await eventually(async () => expect((await board(campaign.id)).counts.replied).toBe(1));
    // The conversation is opened first and put on the account's line by its next step: wait for both.
    await eventually(async () => {
      const [linked] = (await api.dataSource.query(
        `SELECT r.conversation_id, c.attention_line_id AS line_id FROM message_campaign_recipients r JOIN conversations c ON c.id = r.conversation_id
         WHERE r.campaign_id = $1 AND r.address = $2`,
        [campaign.id, `c7@${customers}`],
      )) as { conversation_id: string; line_id: string }[];
      expect(linked).toEqual({ conversation_id: conversation.id, line_id: desk.lineId });
    });

    const csv = await get(`/api/message-campaigns/${campaign.id}/results.csv`);
    expect(csv.status).toBe(200);
    const lines = String(csv.text ?? csv.body)
      .replace(/^\uFEFF/, '')
      .split('\r\n')
      .filter(Boolean);
    expect(lines).toHaveLength(301);
    expect(lines[0]).toMatch(/^phone,address,name,status,skip_reason,/);
    expect(lines.filter((line) => line.includes(',skipped,duplicate,'))).toHaveLength(1);
  });

  it("paces by the account's messages per minute (setting campaignPerMinute)", async () => {
    const slowMailbox = `lento@${domain}`;
    dovecot.addUser(slowMailbox, mailboxPassword);
    const slow = await connectChannelAccount(api, desk, {
      kind: 'email',
      name: `Lento ${run}`,
      externalAccountId: slowMailbox,
      settings: {
        ...localMailSettings(dovecot, smtp, smtpUser),
        campaignPerMinute: '40',
      },
      secrets: { imapPassword: mailboxPassword, smtpPassword },
    });
    const refused = await post('/api/channel-accounts', {
      kind: 'email',
      name: 'Demasiado rápido',
      externalAccountId: `rapido@${domain}`,
      attentionLineId: desk.lineId,
      settings: { imapHost: '127.0.0.1', smtpHost: '127.0.0.1', campaignPerMinute: '10000' },
      secrets: { imapPassword: 'x', smtpPassword: 'y' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errorMessage).toMatch(/campaignPerMinute must be a whole number from 1 to 6000/);
    const template = data<ChannelTemplateView>(
      await post('/api/message-templates', {
        accountId: slow.id,
        name: `ritmo_${run}`,
        language: 'es',
        subject: 'Ritmo',
        text: 'Hola {{1}}',
        examples: ['Ana'],
      }),
    );
    const customers = `ritmo-${run}.test`;
    const rows = Array.from({ length: 3 }, (_, index) => ({ phone: phoneOf(500 + index), email: `p${index}@${customers}`, city: 'Vigo' }));
    const campaign = data<MessageCampaignView>(
      await post('/api/message-campaigns', {
        name: 'Ritmo',
        accountId: slow.id,
        templateId: template.id,
        phoneListId: await phoneList(`Ritmo ${run}`, rows),
        addressColumn: 'email',
        parameterMapping: { body: [{ source: 'name' }] },
      }),
    );
    await post(`/api/message-campaigns/${campaign.id}/start`);
    await eventually(async () => expect((await board(campaign.id)).status).toBe('finished'), 60_000);
    const sent = (await api.dataSource.query(
      `SELECT extract(epoch FROM sent_at) * 1000 AS at FROM message_campaign_recipients WHERE campaign_id = $1 AND status = 'sent' ORDER BY sent_at`,
      [campaign.id],
    )) as { at: string }[];
    expect(sent).toHaveLength(3);
    // 40 a minute: one every 1.5 s.
    expect(Number(sent[1]!.at) - Number(sent[0]!.at)).toBeGreaterThanOrEqual(1400);
    expect(Number(sent[2]!.at) - Number(sent[1]!.at)).toBeGreaterThanOrEqual(1400);
    expect(receivedFor(customers)).toHaveLength(3);

    // Outside its sending windows (judged by the row's phone: Spain) nobody is mailed; the rows wait for the window.
    const madridHour = Number(
      new Intl.DateTimeFormat('en-GB', { hour: '2-digit', hourCycle: 'h23', timeZone: 'Europe/Madrid' }).format(new Date()),
    );
    const closed = madridHour >= 2 && madridHour <= 4 ? [{ from: '15:00', to: '15:01' }] : [{ from: '03:00', to: '03:01' }];
    const waiting = data<MessageCampaignView>(
      await post('/api/message-campaigns', {
        name: 'Fuera de horario',
        accountId: slow.id,
        templateId: template.id,
        phoneListId: await phoneList(
          `Horario ${run}`,
          rows.map((row, index) => ({ ...row, phone: phoneOf(600 + index) })),
        ),
        addressColumn: 'email',
        parameterMapping: { body: [{ source: 'name' }] },
        callingWindows: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => [day, closed])),
      }),
    );
    await post(`/api/message-campaigns/${waiting.id}/start`);
    await eventually(async () => {
      const [row] = (await api.dataSource.query(
        `SELECT count(*) FILTER (WHERE status = 'queued' AND not_before > now() + interval '1 minute')::int AS later, count(*)::int AS total
         FROM message_campaign_recipients WHERE campaign_id = $1`,
        [waiting.id],
      )) as { later: number; total: number }[];
      expect(row).toEqual({ later: 3, total: 3 });
    });
    expect((await board(waiting.id)).counts).toMatchObject({ sent: 0, queued: 3 });
    expect(data<MessageCampaignView>(await post(`/api/message-campaigns/${waiting.id}/stop`)).status).toBe('stopped');
    expect(receivedFor(customers)).toHaveLength(3);
  });

  it('a worker SIGKILLed right after the server took a mail: that recipient is sent unconfirmed, nobody gets it twice, nobody is left out', async () => {
    const customers = `reinicio-${run}.test`;
    const rows = Array.from({ length: 150 }, (_, index) => ({
      phone: phoneOf(1000 + index),
      email: `r${index + 1}@${customers}`,
      city: 'Bilbao',
    }));
    const template = await emailTemplate(`reinicio_${run}`);
    const campaign = data<MessageCampaignView>(
      await post('/api/message-campaigns', {
        name: 'Reinicio',
        accountId: account.id,
        templateId: template.id,
        phoneListId: await phoneList(`Reinicio ${run}`, rows),
        addressColumn: 'email',
        parameterMapping: { body: [{ source: 'name' }, { source: 'fixed', value: 'Bilbao' }] },
      }),
    );
    // The 60th mail: the server has it, and the worker dies before it reads the 250.
    const victim = worker!;
    smtp.beforeAnswer = (mail) => {
      if (receivedFor(customers).length === 60 && mail.envelope.to[0]?.endsWith(`@${customers}`)) {
        smtp.beforeAnswer = null;
        victim.child.kill('SIGKILL');
      }
    };
    await post(`/api/message-campaigns/${campaign.id}/start`);
    await victim.exited;
    expect(receivedFor(customers)).toHaveLength(60);
    worker = await startChannelSendWorker(suite, WORKER_ENV);

    const finished = await eventually(async () => {
      const view = await board(campaign.id);
      expect(view.status).toBe('finished');
      return view;
    }, 120_000);
    expect(finished.counts).toMatchObject({ total: 150, queued: 0, sending: 0, sent: 150, failed: 0, skipped: 0 });
    const mails = receivedFor(customers);
    expect(mails).toHaveLength(150);
    expect(new Set(mails.map((mail) => mail.envelope.to[0])).size).toBe(150);
    const unconfirmed = (await api.dataSource.query(
      `SELECT address, error_text FROM message_campaign_recipients WHERE campaign_id = $1 AND error_code = 'unconfirmed'`,
      [campaign.id],
    )) as { address: string; error_text: string }[];
    expect(unconfirmed).toEqual([{ address: mails[59]!.envelope.to[0], error_text: expect.stringMatching(/Sent once, unconfirmed/) }]);
  });
});
