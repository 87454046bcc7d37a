import { randomBytes } from 'node:crypto';
import type { CaseDetail, ChannelAccountView, EmailMessageView } from '@centralita/contracts';
import { UnsubscribeSigner } from '@centralita/contracts/server';
import { startDovecot, type RunningDovecot } from '../../../../test/support/dovecot';
import { eventually } from '../../../../test/support/eventually';
import {
  accountConversations,
  agentOnline,
  channelDesk,
  channelSuite,
  connectChannelAccount,
  startChannelApi,
  stopChild,
  type ChannelDesk,
} from '../channels/support/channel-e2e';
import { createUser } from '../support/factories';
import { spawnChild, type ChildWorker } from '../support/processes';
import { createStaff, createTenant, data, type StaffMember, type StaffSocket } from '../support/realtime';
import { bearer, login, type TestApp } from '../support/test-app';
import { localMailSettings } from './support/mail-account';
import { customerMessageId, rawMail, TINY_PDF } from './support/mails';
import { startSmtpPeer, type SmtpPeer } from './support/smtp-peer';

jest.setTimeout(120_000);

/**
 * Issue 20 item 4 (/emails/SendEmail: POST /api/emails) and the must-show flow, over the same
 * harness as email.e2e-spec.ts (Dovecot IMAP, the smtp-server peer, the API and the real worker):
 * an agent starts an email, the conversation is Active with them at once (logged, their capacity
 * taken), the mail reaches the SMTP peer with its headers and the customer's Outlook-style reply
 * threads back; the agent cannot close it without a case, creates the case and closes; a second
 * agent adds a note. And item 5's mailto unsubscribe: a mail to the List-Unsubscribe mailto lists
 * its sender and opens no conversation.
 */
describe('Send email (POST /api/emails), the must-show flow and the mailto unsubscribe', () => {
  const run = randomBytes(4).toString('hex');
  const domain = `send-${run}.test`;
  const mailbox = `ventas@${domain}`;
  const mailboxPassword = `imap-${run}`;
  const customerDomain = `cliente-${run}.test`;
  const customer = `bea@${customerDomain}`;
  const smtpUser = `smtp-${run}`;
  const smtpPassword = `smtp-pass-${run}`;
  const suite = channelSuite('send-email', {
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
  let second: StaffMember;
  let account: ChannelAccountView;
  let socket: StaffSocket | undefined;
  let conversationId = '';
  let sentMessageIdHeader = '';

  const sql = <T>(text: string, values: unknown[]) => t.dataSource.query(text, values) as Promise<T[]>;
  const emails = async (id = conversationId, token = desk.agent.token) =>
    data<EmailMessageView[]>(await t.http().get(`/api/conversations/${id}/emails`).set(bearer(token)));
  const deliver = (raw: string) => dovecot.append(mailbox, mailboxPassword, raw);
  const sendEmail = (payload: unknown, files: { name: string; bytes: Buffer; type: string }[] = [], token = desk.agent.token) => {
    const call = t
      .http()
      .post('/api/emails')
      .set(bearer(token))
      .field('payload', typeof payload === 'string' ? payload : JSON.stringify(payload));
    for (const file of files) void call.attach('files', file.bytes, { filename: file.name, contentType: file.type });
    return call;
  };
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

  beforeAll(async () => {
    dovecot = await startDovecot();
    dovecot.addUser(mailbox, mailboxPassword);
    smtp = await startSmtpPeer({ user: smtpUser, password: smtpPassword });
    t = await startChannelApi(suite);
    worker = await startWorker();
    // Capacity 1: the started conversation fills the agent, so a second one answers 409.
    desk = await channelDesk(t, { capacity: 1 });
    second = await createStaff(t, desk.tenant, 'AGENT', [desk.lineId]);
    account = await connectChannelAccount(t, desk, {
      kind: 'email',
      name: `Ventas ${run}`,
      externalAccountId: mailbox,
      settings: {
        ...localMailSettings(dovecot, smtp, smtpUser),
        fromName: 'Ventas',
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

  it('lists the email accounts an agent may send from: id, name and sender address, never a secret or a server', async () => {
    const accounts = data<Record<string, unknown>[]>(await t.http().get('/api/emails/accounts').set(bearer(desk.agent.token)));
    expect(accounts).toEqual([{ id: account.id, name: `Ventas ${run}`, fromAddress: mailbox }]);
  });

  it('refuses hostile input with a 400 naming the field, another tenant’s account or contact with 404, a sender off the desk with 409', async () => {
    const base = { accountId: account.id, to: customer, subject: 'Oferta', html: '<p>Hola</p>' };
    expect((await sendEmail('not json')).status).toBe(400);
    const badTo = await sendEmail({ ...base, to: 'nope<script>' });
    expect(badTo.status).toBe(400);
    expect(badTo.body.errorMessage).toMatch(/to: "nope<script>" is neither a contact id nor an email address/);
    const noSubject = await sendEmail({ ...base, subject: '' });
    expect(noSubject.status).toBe(400);
    expect(noSubject.body.errorMessage).toMatch(/subject is required/);
    const injected = await sendEmail({ ...base, subject: 'Hi\r\nBcc: victim@example.com' });
    expect(injected.status).toBe(400);
    expect((await sendEmail({ ...base, accountId: 'x' })).body.errorMessage).toMatch(/accountId must be the id of an email account/);
    expect((await sendEmail({ ...base, html: '<script>only</script>' })).body.errorMessage).toMatch(/The email is empty/);
    const other = await createTenant(t.dataSource);
    const stranger = await createStaff(t, other, 'AGENT');
    expect((await sendEmail(base, [], stranger.token)).status).toBe(404);
    const [contact] = await sql<{ id: string }>(
      `INSERT INTO contacts (tenant_id, channel, channel_account_id, external_id, name, email) VALUES ($1, 'email', 'x', $2, 'X', $3) RETURNING id`,
      [other.client.id, `foreign-${run}@${customerDomain}`, `foreign-${run}@${customerDomain}`],
    );
    expect((await sendEmail({ ...base, to: contact!.id })).status).toBe(404);
    const offDesk = await sendEmail(base, [], second.token);
    expect(offDesk.status).toBe(409);
    expect(offDesk.body.errorMessage).toMatch(/not signed in to the desk/);
    const admin = await createUser(t.dataSource, other, { role: 'ADMIN' });
    expect(
      (
        await t
          .http()
          .get('/api/emails/accounts')
          .set(bearer((await login(t, admin.email, admin.password)).accessToken))
      ).body.data,
    ).toEqual([]);
    expect(await accountConversations(t.dataSource, account.id)).toHaveLength(0);
  });

  it('an agent starts an email: Active with them at once (logged, capacity taken), the SMTP peer gets it with its headers', async () => {
    const created = await sendEmail(
      {
        accountId: account.id,
        to: customer,
        subject: 'Su presupuesto',
        html: '<p>Hola <strong>Bea</strong>, adjunto el presupuesto.</p><script>x()</script>',
        cc: [`jefe@${domain}`],
        bcc: [],
        clientMessageId: `new-${run}`,
      },
      [{ name: 'presupuesto.pdf', bytes: TINY_PDF, type: 'application/pdf' }],
    );
    expect(created.status).toBe(200);
    const body = created.body.data as { conversationId: string; message: { deliveryStatus: string } };
    conversationId = body.conversationId;
    expect(body.message.deliveryStatus).toBe('pending');
    const [conversation] = await accountConversations(t.dataSource, account.id);
    expect(conversation).toMatchObject({
      id: conversationId,
      status: 'Active',
      agent_id: desk.agent.userId,
      channel: 'email',
      contact: customer,
    });
    const log = await sql<{ from_state: string; to_state: string; event: string; actor_kind: string; actor_id: string }>(
      `SELECT from_state, to_state, event, actor_kind, actor_id FROM transition_log WHERE entity_type = 'conversation' AND entity_id = $1 ORDER BY version`,
      [conversationId],
    );
    expect(log[1]).toEqual({
      from_state: 'Transitory',
      to_state: 'Active',
      event: 'conversation.agentStarted',
      actor_kind: 'agent',
      actor_id: desk.agent.userId,
    });
    const [presence] = await sql<{ active_count: number }>(`SELECT active_count FROM agent_presence WHERE user_id = $1`, [
      desk.agent.userId,
    ]);
    expect(presence!.active_count).toBe(1);
    const mail = await eventually(
      () => {
        expect(smtp.received).toHaveLength(1);
        return smtp.received[0]!;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const [outbound] = await emails();
    sentMessageIdHeader = outbound!.messageIdHeader;
    expect(mail.parsed.messageId).toBe(sentMessageIdHeader);
    expect(mail.parsed.subject).toBe('Su presupuesto');
    expect(mail.parsed.inReplyTo).toBeUndefined();
    expect(mail.envelope.to.sort()).toEqual([customer, `jefe@${domain}`].sort());
    expect(mail.header('Reply-To')).toMatch(new RegExp(`^ventas\\+r[0-9a-f]{24}@${domain.replace(/\./g, '\\.')}$`));
    expect(String(mail.parsed.html)).toContain('<strong>Bea</strong>');
    expect(String(mail.parsed.html)).not.toMatch(/<script/);
    expect(mail.parsed.attachments.map((one) => one.filename)).toEqual(['presupuesto.pdf']);
  });

  it('refuses a second conversation while the agent is at capacity (409 naming it)', async () => {
    const full = await sendEmail({ accountId: account.id, to: `otro-${run}@${customerDomain}`, subject: 'Otra', html: '<p>x</p>' });
    expect(full.status).toBe(409);
    expect(full.body.errorMessage).toMatch(/no room for another conversation \(1 of 1\)/);
    expect(await accountConversations(t.dataSource, account.id)).toHaveLength(1);
  });

  it('the customer’s Outlook-style reply threads into that conversation', async () => {
    const answer = customerMessageId(customerDomain);
    await deliver(
      rawMail({
        extraHeaders: ['Thread-Topic: Su presupuesto', 'Thread-Index: AQHZxkq1c2VydmljaW8=', 'X-MS-Has-Attach:'],
        from: customer,
        to: `Ventas <${mailbox}>`,
        subject: 'RE: Su presupuesto',
        messageId: answer,
        inReplyTo: sentMessageIdHeader,
        references: [sentMessageIdHeader],
        text: [
          'Me interesa, gracias.',
          '',
          '________________________________',
          `From: Ventas <${mailbox}>`,
          'Sent: Thursday',
          '',
          'Hola Bea',
        ].join('\r\n'),
      }),
    );
    const mails = await eventually(
      async () => {
        const found = await emails();
        expect(found.map((one) => one.messageIdHeader)).toEqual([sentMessageIdHeader, answer]);
        return found;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(mails[1]!.text).toBe('Me interesa, gracias.');
    expect(await accountConversations(t.dataSource, account.id)).toHaveLength(1);
  });

  it('must show: no close without a case, the case created from the conversation, closed, a second agent adds a note', async () => {
    const close = () =>
      t.http().post(`/api/agent/conversations/${conversationId}/close`).set(bearer(desk.agent.token)).send({ disposition: 'resolved' });
    const refused = await close();
    expect(refused.status).toBe(409);
    expect(refused.body.errorMessage).toBe('You cannot close the email without creating the corresponding case.');
    const made = data<CaseDetail>(
      await t
        .http()
        .post('/api/cases')
        .set(bearer(desk.agent.token))
        .send({ subject: 'Presupuesto Bea', description: 'La cliente acepta el presupuesto', contactEmail: customer, conversationId }),
    );
    expect(made.conversations.map((one) => one.conversationId)).toContain(conversationId);
    expect((await close()).status).toBe(200);
    await eventually(async () => {
      const [row] = await sql<{ status: string }>(`SELECT status FROM conversations WHERE id = $1`, [conversationId]);
      expect(['Inquest', 'Closed']).toContain(row!.status);
    });
    const [presence] = await sql<{ active_count: number }>(`SELECT active_count FROM agent_presence WHERE user_id = $1`, [
      desk.agent.userId,
    ]);
    expect(presence!.active_count).toBe(0);
    const noted = data<CaseDetail>(
      await t.http().post(`/api/cases/${made.id}/notes`).set(bearer(second.token)).send({ text: 'Llamé a la cliente: confirma.' }),
    );
    expect(noted.notes.map((one) => one.text)).toContain('Llamé a la cliente: confirma.');
  });

  it('a mail to the List-Unsubscribe mailto lists its sender (reason unsubscribe) and opens no conversation; a forged token lists nobody', async () => {
    const signer = new UnsubscribeSigner(process.env);
    const leaving = `baja-${run}@${customerDomain}`;
    const forger = `forger-${run}@${customerDomain}`;
    const genuine = customerMessageId(customerDomain);
    const forged = customerMessageId(customerDomain);
    await deliver(
      rawMail({
        from: leaving,
        to: `unsubscribe@${domain}`,
        subject: `unsubscribe ${signer.sign(desk.tenantId, leaving)}`,
        messageId: genuine,
        text: '',
      }),
    );
    await deliver(
      rawMail({
        from: forger,
        to: `unsubscribe@${domain}`,
        subject: `unsubscribe ${signer.sign(desk.tenantId, leaving)}`,
        messageId: forged,
        text: '',
      }),
    );
    await eventually(
      async () => {
        const events = await sql<{ delivery_key: string; processed_at: Date | null }>(
          `SELECT delivery_key, processed_at FROM channel_events WHERE account_id = $1 AND delivery_key = ANY($2::text[])`,
          [account.id, [`id:${genuine}`, `id:${forged}`]],
        );
        expect(events).toHaveLength(2);
        expect(events.every((one) => one.processed_at !== null)).toBe(true);
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    const listed = await sql<{ address: string; reason: string; source: string }>(
      `SELECT address, reason, source FROM mail_blacklist WHERE tenant_id = $1 AND address = ANY($2::text[])`,
      [desk.tenantId, [leaving, forger]],
    );
    expect(listed).toEqual([{ address: leaving, reason: 'unsubscribe', source: 'mailto' }]);
    const contacts = await sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM contacts WHERE tenant_id = $1 AND external_id = ANY($2::text[])`,
      [desk.tenantId, [leaving, forger]],
    );
    expect(contacts[0]!.n).toBe(0);
    // The listed address is refused when an agent tries to write to it.
    const refused = await sendEmail({ accountId: account.id, to: leaving, subject: 'Hola', html: '<p>x</p>' });
    expect(refused.status).toBe(409);
    expect(refused.body.errorMessage).toMatch(/is on the mail blacklist/);
  });
});
