import { randomBytes } from 'node:crypto';
import type { ChannelAccountView, EmailMessageView, MessageView } from '@centralita/contracts';
import { startDovecot, type RunningDovecot } from '../../../../test/support/dovecot';
import { eventually } from '../../../../test/support/eventually';
import {
  accountConversations,
  agentOnline,
  channelDesk,
  channelSuite,
  connectChannelAccount,
  conversationMessages,
  startChannelApi,
  stopChild,
  type ChannelDesk,
} from '../channels/support/channel-e2e';
import { createUser } from '../support/factories';
import { spawnChild, type ChildWorker } from '../support/processes';
import { createTenant, data, type StaffSocket } from '../support/realtime';
import { bearer, login, type TestApp } from '../support/test-app';
import { localMailSettings } from './support/mail-account';
import { customerMessageId, rawMail, TINY_PDF } from './support/mails';
import { startSmtpPeer, type SmtpPeer } from './support/smtp-peer';

jest.setTimeout(120_000);

/**
 * Email end to end (issue 20) over real PostgreSQL and Redis, a real IMAP server (Debian's Dovecot,
 * test/support/dovecot.ts) and the smtp-server package as the SMTP peer: the worker's mailbox reader
 * takes a customer's mail from the IMAP folder, the API threads it into a conversation routed to
 * the agent, the agent's reply leaves through the worker with its threading headers, and the
 * customer's reply (Outlook's headers, a reply token) lands in the same conversation.
 */
describe('Email channel end to end (Dovecot IMAP, SMTP peer, API, worker)', () => {
  const run = randomBytes(4).toString('hex');
  const domain = `desk-${run}.test`;
  const mailbox = `support@${domain}`;
  const mailboxPassword = `imap-${run}`;
  const customerDomain = `customer-${run}.test`;
  const customer = `ana@${customerDomain}`;
  const smtpUser = `smtp-${run}`;
  const smtpPassword = `smtp-pass-${run}`;
  const suite = channelSuite('email', {
    // The test servers are on loopback, which tenants' hosts may not be: the operator allows it here.
    OUTGOING_ALLOWED_CIDRS: '127.0.0.0/8',
    EMAIL_POLL_MS: '400',
    EMAIL_ACCOUNTS_REFRESH_MS: '300',
    EMAIL_RETRY_MS: '300',
    EMAIL_LEASE_MS: '2000',
  });
  let dovecot: RunningDovecot;
  let smtp: SmtpPeer;
  let t: TestApp;
  let worker: ChildWorker | undefined;
  let desk: ChannelDesk;
  let account: ChannelAccountView;
  let socket: StaffSocket | undefined;
  let conversationId = '';
  let firstMessageId = '';
  let replyMessageIdHeader = '';

  const sql = <T>(text: string, values: unknown[]) => t.dataSource.query(text, values) as Promise<T[]>;
  const emails = async (id = conversationId, token = desk.agent.token) =>
    data<EmailMessageView[]>(await t.http().get(`/api/conversations/${id}/emails`).set(bearer(token)));
  const deliver = (raw: string) => dovecot.append(mailbox, mailboxPassword, raw);
  const reply = (id: string, payload: unknown, files: { name: string; bytes: Buffer; type: string }[] = [], token = desk.agent.token) => {
    const call = t
      .http()
      .post(`/api/conversations/${id}/email-replies`)
      .set(bearer(token))
      .field('payload', typeof payload === 'string' ? payload : JSON.stringify(payload));
    for (const file of files) void call.attach('files', file.bytes, { filename: file.name, contentType: file.type });
    return call;
  };
  /** The real worker with the suite's prefix and environment (mailbox readers, channel-send). */
  const startWorker = async () => {
    const child = spawnChild('../email/support/email-worker.child.ts', {
      ...process.env,
      NODE_ENV: 'test',
      QUEUE_PREFIX: suite.queuePrefix,
      ...suite.env,
    });
    try {
      await child.ready;
    } catch (error) {
      child.child.kill('SIGKILL');
      throw error;
    }
    return child;
  };
  const eventsOf = async () =>
    (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1`, [account.id]))[0]!.n;

  beforeAll(async () => {
    dovecot = await startDovecot();
    dovecot.addUser(mailbox, mailboxPassword);
    smtp = await startSmtpPeer({ user: smtpUser, password: smtpPassword });
    t = await startChannelApi(suite);
    worker = await startWorker();
    desk = await channelDesk(t);
    account = await connectChannelAccount(t, desk, {
      kind: 'email',
      name: `Support ${run}`,
      externalAccountId: mailbox,
      settings: {
        ...localMailSettings(dovecot, smtp, smtpUser),
        fromName: 'Soporte',
      },
      secrets: { imapPassword: mailboxPassword, smtpPassword },
    });
    socket = (await agentOnline(t, desk)).socket;
  }, 180_000);

  afterAll(async () => {
    socket?.close();
    await stopChild(worker);
    await t?.close();
    await smtp?.close();
    await dovecot?.close();
  });

  it('offers email as a mailbox kind and checks the account against both servers', async () => {
    const kinds = data<{ kind: string; inbound?: string; secrets: string[] }[]>(
      await t.http().get('/api/channel-kinds').set(bearer(desk.adminToken)),
    );
    expect(kinds.find((kind) => kind.kind === 'email')).toMatchObject({ inbound: 'mailbox', secrets: ['imapPassword', 'smtpPassword'] });
    const checked = data<{ ok: boolean; message: string | null }>(
      await t.http().post(`/api/channel-accounts/${account.id}/test`).set(bearer(desk.adminToken)),
    );
    expect(checked).toMatchObject({ ok: true, name: `Soporte <${mailbox}>` });
  });

  it('refuses hostile account settings with a 400 naming the field, and a refused host at test time', async () => {
    const bad = await t
      .http()
      .post('/api/channel-accounts')
      .set(bearer(desk.adminToken))
      .send({
        kind: 'email',
        name: 'Bad',
        externalAccountId: `x-${run}@${domain}`,
        attentionLineId: desk.lineId,
        settings: { imapHost: 'imap.example.com', smtpHost: 'smtp.example.com', imapPort: '99999' },
        secrets: { imapPassword: 'a', smtpPassword: 'b' },
      });
    expect(bad.status).toBe(400);
    expect(bad.body.errorMessage).toMatch(/imapPort must be a port number/);
    const notAnAddress = await t
      .http()
      .post('/api/channel-accounts')
      .set(bearer(desk.adminToken))
      .send({
        kind: 'email',
        name: 'Bad',
        externalAccountId: 'not an address',
        attentionLineId: desk.lineId,
        settings: { imapHost: 'imap.example.com', smtpHost: 'smtp.example.com' },
        secrets: { imapPassword: 'a', smtpPassword: 'b' },
      });
    expect(notAnAddress.status).toBe(400);
    expect(notAnAddress.body.errorMessage).toMatch(/mailbox address/);
    // A private address passes the form (names resolve later) but never gets a connection: the test says why.
    const inside = data<ChannelAccountView>(
      await t
        .http()
        .post('/api/channel-accounts')
        .set(bearer(desk.adminToken))
        .send({
          kind: 'email',
          name: 'Inside',
          externalAccountId: `inside-${run}@${domain}`,
          attentionLineId: desk.lineId,
          enabled: false,
          settings: { imapHost: '10.20.30.40', smtpHost: '10.20.30.40' },
          secrets: { imapPassword: 'a', smtpPassword: 'b' },
        }),
    );
    const refused = data<{ ok: boolean; message: string }>(
      await t.http().post(`/api/channel-accounts/${inside.id}/test`).set(bearer(desk.adminToken)),
    );
    expect(refused).toMatchObject({ ok: false, message: expect.stringMatching(/10\.20\.30\.40 is a private address/) });
  });

  it('a customer mail opens a conversation queued to the agent, with its headers, verdicts and attachment', async () => {
    firstMessageId = customerMessageId(customerDomain);
    await deliver(
      rawMail({
        extraHeaders: [
          // The mailbox's own server's verdicts (top-most), and a forged one further down that must be ignored.
          `Authentication-Results: mx.${domain}; spf=pass smtp.mailfrom=${customerDomain}; dkim=pass header.d=${customerDomain}; dmarc=pass header.from=${customerDomain}`,
          `Authentication-Results: evil.example; spf=fail; dkim=fail; dmarc=fail`,
        ],
        from: customer,
        fromName: 'Ana Pérez',
        to: mailbox,
        cc: `colleague@${customerDomain}`,
        subject: 'Factura duplicada',
        messageId: firstMessageId,
        text: 'Hola, me han cobrado dos veces la factura de octubre.\n\nAna',
        html: '<p>Hola, me han cobrado <b>dos veces</b> la factura de octubre.</p><p>Ana</p>',
        attachment: { fileName: 'factura.pdf', mimeType: 'application/pdf', bytes: TINY_PDF },
      }),
    );
    const [conversation] = await eventually(
      async () => {
        const found = await accountConversations(t.dataSource, account.id);
        expect(found).toHaveLength(1);
        expect(found[0]).toMatchObject({ status: 'Active', agent_id: desk.agent.userId, channel: 'email', contact: customer });
        return found;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    conversationId = conversation!.id;
    const [email] = await emails();
    expect(email).toMatchObject({
      direction: 'in',
      subject: 'Factura duplicada',
      messageIdHeader: firstMessageId,
      from: { address: customer, name: 'Ana Pérez' },
      to: [{ address: mailbox, name: null }],
      cc: [{ address: `colleague@${customerDomain}`, name: null }],
      auth: { spf: 'pass', dkim: 'pass', dmarc: 'pass' },
    });
    expect(email!.html).toContain('<b>dos veces</b>');
    expect(email!.text).toContain('me han cobrado dos veces');
    expect(email!.attachments).toEqual([
      expect.objectContaining({ fileName: 'factura.pdf', mimeType: 'application/pdf', kind: 'document' }),
    ]);
    const [message] = await conversationMessages(t, desk.agent.token, conversationId);
    expect(message!.text.startsWith('Factura duplicada\nHola, me han cobrado')).toBe(true);
  });

  it('the agent answers with rich text, cc and a file: the SMTP peer gets one mail that threads in the customer’s client', async () => {
    const sent = await reply(
      conversationId,
      {
        html: '<p>Hola <strong>Ana</strong>, ya lo hemos anulado.</p><script>alert(1)</script><img src="https://tracker.example/p.gif"><a href="javascript:alert(1)">x</a>',
        cc: [`billing@${domain}`],
        bcc: [`audit@${domain}`],
        clientMessageId: `reply-${run}`,
      },
      [{ name: 'abono.pdf', bytes: TINY_PDF, type: 'application/pdf' }],
    );
    expect(sent.status).toBe(200);
    const message = sent.body.data as MessageView;
    expect(message.deliveryStatus).toBe('pending');
    const mail = await eventually(
      () => {
        expect(smtp.received).toHaveLength(1);
        return smtp.received[0]!;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const [, outbound] = await emails();
    replyMessageIdHeader = outbound!.messageIdHeader;
    expect(mail.parsed.messageId).toBe(replyMessageIdHeader);
    expect(mail.parsed.inReplyTo).toBe(firstMessageId);
    expect(mail.header('References')).toBe(firstMessageId);
    expect(mail.parsed.subject).toBe('Re: Factura duplicada');
    expect(mail.envelope.to.sort()).toEqual([customer, `audit@${domain}`, `billing@${domain}`].sort());
    expect(mail.header('Cc')).toBe(`billing@${domain}`);
    expect(mail.header('Bcc')).toBeUndefined();
    expect(mail.header('Reply-To')).toMatch(new RegExp(`^support\\+r[0-9a-f]{24}@${domain.replace(/\./g, '\\.')}$`));
    const html = String(mail.parsed.html);
    expect(html).toContain('<strong>Ana</strong>');
    expect(html).not.toMatch(/<script|tracker\.example|javascript:/i);
    expect(mail.parsed.attachments.map((one) => one.filename)).toEqual(['abono.pdf']);
    await eventually(
      async () => {
        const stored = (await conversationMessages(t, desk.agent.token, conversationId)).find((one) => one.id === message.id);
        expect(stored?.deliveryStatus).toBe('sent');
      },
      { timeoutMs: 15_000 },
    );
    // Read again now the message shows sent: the SMTP peer has the mail as soon as it answers 250,
    // and the worker marks the send confirmed only after that answer reaches it.
    const [, settledOutbound] = await emails();
    expect(settledOutbound).toMatchObject({
      direction: 'out',
      confirmed: true,
      cc: [{ address: `billing@${domain}` }],
      inReplyTo: firstMessageId,
    });
    // A resend of the same composed reply (same client id) stores and sends nothing new.
    const again = await reply(conversationId, { html: '<p>Hola</p>', clientMessageId: `reply-${run}` });
    expect((again.body.data as MessageView).id).toBe(message.id);
  });

  it('the customer’s reply with Outlook’s headers threads into the same conversation, its quote folded away', async () => {
    const outlookReply = customerMessageId(customerDomain);
    await deliver(
      rawMail({
        extraHeaders: [
          'Thread-Topic: Factura duplicada',
          'Thread-Index: AQHZxkq1c2VydmljaW8=',
          'X-MS-Has-Attach:',
          'X-MS-TNEF-Correlator:',
        ],
        from: customer,
        to: `Soporte <${mailbox}>`,
        subject: 'RE: Factura duplicada',
        messageId: outlookReply,
        inReplyTo: replyMessageIdHeader,
        references: [firstMessageId, replyMessageIdHeader],
        text: [
          'Perfecto, muchas gracias.',
          '',
          '________________________________',
          `From: Soporte <${mailbox}>`,
          'Sent: Thursday, November 26, 2026 9:00 AM',
          `To: Ana Pérez <${customer}>`,
          'Subject: Re: Factura duplicada',
          '',
          'Hola Ana, ya lo hemos anulado.',
        ].join('\r\n'),
      }),
    );
    const mails = await eventually(
      async () => {
        const found = await emails();
        expect(found.map((one) => one.messageIdHeader)).toEqual([firstMessageId, replyMessageIdHeader, outlookReply]);
        return found;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(mails[2]!.text).toBe('Perfecto, muchas gracias.');
    expect(mails[2]!.quoted).toContain('Sent: Thursday');
    expect(await accountConversations(t.dataSource, account.id)).toHaveLength(1);
  });

  it('a reply whose client dropped the threading headers still threads by its reply token', async () => {
    const [, outbound] = await emails();
    const [row] = await sql<{ reply_token: string }>(`SELECT reply_token FROM message_emails WHERE message_id_header = $1`, [
      outbound!.messageIdHeader,
    ]);
    const tokenReply = customerMessageId(customerDomain);
    await deliver(
      rawMail({
        // Another address of the customer's company: no thread headers, only the reply address.
        from: `boss@${customerDomain}`,
        to: `support+r${row!.reply_token}@${domain}`,
        subject: 'Sobre la factura',
        messageId: tokenReply,
        text: 'Confirmo el abono.',
      }),
    );
    await eventually(async () => expect((await emails()).map((one) => one.messageIdHeader)).toContain(tokenReply), {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    expect(await accountConversations(t.dataSource, account.id)).toHaveLength(1);
  });

  it('answers 400 for hostile reply input and 404 for another tenant', async () => {
    expect((await reply(conversationId, 'not json')).status).toBe(400);
    const badCc = await reply(conversationId, { html: '<p>x</p>', cc: ['a@b.c', 'nope<script>'] });
    expect(badCc.status).toBe(400);
    expect(badCc.body.errorMessage).toMatch(/cc: "nope<script>" is not an email address/);
    const header = await reply(conversationId, { html: '<p>x</p>', subject: 'Hi\r\nBcc: victim@example.com' });
    expect(header.status).toBe(400);
    expect((await reply(conversationId, { html: '<script>only</script>' })).status).toBe(400);
    const other = await createTenant(t.dataSource);
    const otherAdmin = await createUser(t.dataSource, other, { role: 'ADMIN' });
    const stranger = (await login(t, otherAdmin.email, otherAdmin.password)).accessToken;
    expect((await t.http().get(`/api/conversations/${conversationId}/emails`).set(bearer(stranger))).status).toBe(404);
    expect((await reply(conversationId, { html: '<p>x</p>' }, [], stranger)).status).toBe(404);
  });

  it('a blacklisted address is refused with the reason shown to the agent, and nothing leaves', async () => {
    await sql(`INSERT INTO mail_blacklist (tenant_id, address, reason, source) VALUES ($1, $2, 'manual', 'admin') ON CONFLICT DO NOTHING`, [
      desk.tenantId,
      `blocked-${run}@${domain}`,
    ]);
    const before = smtp.received.length;
    const sent = await reply(conversationId, { html: '<p>Copia</p>', cc: [`blocked-${run}@${domain}`] });
    expect(sent.status).toBe(200);
    const id = (sent.body.data as MessageView).id;
    const failed = await eventually(
      async () => {
        const stored = (await conversationMessages(t, desk.agent.token, conversationId)).find((one) => one.id === id);
        expect(stored?.deliveryStatus).toBe('failed');
        return stored!;
      },
      { timeoutMs: 20_000 },
    );
    expect(failed.deliveryError).toMatch(
      new RegExp(`blocked-${run}@${domain.replace(/\./g, '\\.')} is on the mail blacklist \\(manual\\)`),
    );
    expect(smtp.received).toHaveLength(before);
  });

  it('a mailbox reconnect after downtime fetches every mail it missed, once', async () => {
    const eventsBefore = await eventsOf();
    await dovecot.stop();
    const missed = [1, 2, 3].map(() => customerMessageId(customerDomain));
    for (const [index, messageId] of missed.entries()) {
      dovecot.deliverWhileDown(
        mailbox,
        rawMail({
          from: `late${index}@${customerDomain}`,
          to: mailbox,
          subject: `Mientras tanto ${index}`,
          messageId,
          text: `Correo ${index}`,
        }),
      );
    }
    await dovecot.start();
    await eventually(
      async () => {
        const stored = await sql<{ external_id: string }>(
          `SELECT external_id FROM messages WHERE channel_account_id = $1 AND external_id = ANY($2::text[])`,
          [account.id, missed],
        );
        expect(stored.map((one) => one.external_id).sort()).toEqual([...missed].sort());
      },
      { timeoutMs: 40_000, intervalMs: 250 },
    );
    // A mail after the reconnect is taken too: the reader synced again, and the missed ones are still stored once.
    const after = customerMessageId(customerDomain);
    await deliver(
      rawMail({ from: `late@${customerDomain}`, to: mailbox, subject: 'Después', messageId: after, text: 'Ya estáis de vuelta' }),
    );
    await eventually(
      async () => {
        const [found] = await sql<{ n: number }>(
          `SELECT count(*)::int AS n FROM messages WHERE channel_account_id = $1 AND external_id = $2`,
          [account.id, after],
        );
        expect(found!.n).toBe(1);
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    const counts = await sql<{ external_id: string; n: number }>(
      `SELECT external_id, count(*)::int AS n FROM messages WHERE channel_account_id = $1 AND external_id = ANY($2::text[]) GROUP BY external_id`,
      [account.id, missed],
    );
    expect(counts.map((one) => one.n)).toEqual([1, 1, 1]);
    expect(await eventsOf()).toBe(eventsBefore + 4);
  });

  it('a new UIDVALIDITY reads the folder again and stores nothing twice', async () => {
    const [before] = await sql<{ uid_validity: string }>(`SELECT uid_validity FROM email_mailbox_state WHERE account_id = $1`, [
      account.id,
    ]);
    const eventsBefore = await eventsOf();
    await dovecot.stop();
    await dovecot.start({ resetUidValidity: mailbox });
    await eventually(
      async () => {
        const [state] = await sql<{ uid_validity: string; last_uid: string }>(
          `SELECT uid_validity, last_uid FROM email_mailbox_state WHERE account_id = $1`,
          [account.id],
        );
        expect(state!.uid_validity).not.toBe(before!.uid_validity);
        // Every mail of the folder read again under the new UIDVALIDITY…
        expect(Number(state!.last_uid)).toBe((await dovecot.list(mailbox, mailboxPassword)).length);
      },
      { timeoutMs: 40_000, intervalMs: 250 },
    );
    // …and none stored twice.
    expect(await eventsOf()).toBe(eventsBefore);
  });

  it('a worker killed right after the SMTP server’s 250 does not send the reply twice', async () => {
    const before = smtp.received.length;
    const victim = worker!;
    // Frozen before the server answers, killed after its 250 went out: the worker never reads the answer.
    smtp.beforeAnswer = () => {
      smtp.beforeAnswer = null;
      victim.child.kill('SIGSTOP');
    };
    smtp.afterAccept = () => {
      smtp.afterAccept = null;
      victim.child.kill('SIGKILL');
    };
    const sent = await reply(conversationId, { html: '<p>Una sola vez</p>', clientMessageId: `once-${run}` });
    expect(sent.status).toBe(200);
    const id = (sent.body.data as MessageView).id;
    await victim.exited;
    expect(smtp.received).toHaveLength(before + 1);
    // The job's lock runs out and another worker takes the stalled job: it must not send again.
    worker = await startWorker();
    const settled = await eventually(
      async () => {
        const stored = (await conversationMessages(t, desk.agent.token, conversationId)).find((one) => one.id === id);
        expect(stored?.deliveryStatus).toBe('sent');
        return stored!;
      },
      { timeoutMs: 100_000, intervalMs: 500 },
    );
    expect(settled.deliveryError).toMatch(/Sent once, unconfirmed/);
    const once = smtp.received.filter((mail) => mail.parsed.messageId === smtp.received[before]!.parsed.messageId);
    expect(once).toHaveLength(1);
    expect(smtp.received).toHaveLength(before + 1);
    const outbound = (await emails()).find((one) => one.messageId === id);
    expect(outbound?.confirmed).toBe(false);
  }, 180_000);
});
