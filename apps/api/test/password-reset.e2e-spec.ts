import type { AddressInfo } from 'node:net';
import type { INestApplicationContext } from '@nestjs/common';
import { SMTPServer } from 'smtp-server';
import { eventually } from '../../../test/support/eventually';
import { createWorker } from '../../worker/src/main';
import { PasswordResetToken } from '../src/modules/auth/password-reset-token.entity';
import { User } from '../src/modules/users/user.entity';
import { createTenant, createUser, type TestTenant } from './support/factories';
import { bearer, login, startTestApp, uniqueEmail, type TestApp } from './support/test-app';

interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** Undoes quoted-printable soft line breaks and escapes, enough to read links out of a raw message. */
function decodeQuotedPrintable(raw: string): string {
  const bytes = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** The Subject header with its RFC 2047 encoded words (Q or B) decoded. */
function subjectOf(raw: string): string {
  const header = /^Subject: ((?:.*)(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1] ?? '';
  return header
    .replace(/\r?\n[ \t]/g, ' ')
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, kind: string, text: string) =>
      kind.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

describe('Password reset through real SMTP (e2e)', () => {
  const PUBLIC_URL = 'https://console.centralita.test';
  const inbox: ReceivedMail[] = [];
  let smtp: SMTPServer;
  let worker: INestApplicationContext;
  let t: TestApp;
  let tenant: TestTenant;

  const mailTo = (address: string): Promise<ReceivedMail> =>
    eventually(
      () => {
        const mail = inbox.filter((message) => message.to.includes(address)).at(-1);
        if (!mail) throw new Error(`no mail to ${address} yet`);
        return mail;
      },
      { timeoutMs: 10_000 },
    );
  const linkIn = (mail: ReceivedMail): string => {
    const match = /https:\/\/console\.centralita\.test\/session\/resetPassword\/([A-Za-z0-9_-]{43})/.exec(decodeQuotedPrintable(mail.raw));
    if (!match) throw new Error(`no reset link in:\n${mail.raw}`);
    return match[1];
  };
  const requestLink = async (email: string): Promise<string> => {
    const before = inbox.filter((message) => message.to.includes(email)).length;
    await t
      .http()
      .post('/Session/SendResetPasswordEmail')
      .send({ email })
      .expect(200, { statusCode: 200, data: { accepted: true }, errorMessage: null });
    const mail = await eventually(
      () => {
        const received = inbox.filter((message) => message.to.includes(email));
        if (received.length <= before) throw new Error(`no new mail to ${email} yet`);
        return received.at(-1)!;
      },
      { timeoutMs: 10_000 },
    );
    return linkIn(mail);
  };

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          inbox.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as AddressInfo;
    worker = await createWorker({
      config: { smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'Centralita <no-reply@centralita.test>' },
      logger: ['error'],
    });
    t = await startTestApp({ publicUrl: PUBLIC_URL });
    tenant = await createTenant(t.dataSource);
  });

  afterAll(async () => {
    await t?.close();
    await worker?.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('mails a single-use link; using it sets the password and ends every session', async () => {
    const { user, email, password } = await createUser(t.dataSource, tenant);
    const session = await login(t, email, password);

    const token = await requestLink(email);
    const mail = await mailTo(email);
    expect(mail.from).toBe('no-reply@centralita.test');
    expect(subjectOf(mail.raw)).toBe('Restablecer tu contraseña / Reset your password — Centralita');
    expect(decodeQuotedPrintable(mail.raw)).toContain('contraseña');
    const stored = await t.dataSource.getRepository(PasswordResetToken).findBy({ userId: user.id });
    expect(stored).toHaveLength(1);
    expect(stored[0].tokenHash).not.toContain(token);
    expect(stored[0].expiresAt.getTime() - stored[0].createdAt.getTime()).toBeGreaterThan(29 * 60_000);
    expect(stored[0].expiresAt.getTime() - stored[0].createdAt.getTime()).toBeLessThanOrEqual(30 * 60_000 + 1000);

    const check = await t.http().get('/Session/ValidateUrlToResetPassword').query({ token }).expect(200);
    expect(check.body.data).toEqual({ valid: true, expiresAt: expect.any(String) });

    await t
      .http()
      .post('/Session/ResetPassword')
      .send({ token, password: 'a brand new passphrase' })
      .expect(200, { statusCode: 200, data: { passwordReset: true }, errorMessage: null });

    await t.http().get('/api/auth/profile').set(bearer(session.accessToken)).expect(401);
    await t.http().get('/Session/RefreshToken').set('X-Refresh-Token', session.refreshToken).expect(401);
    await t.http().post('/api/auth/login').send({ email, password }).expect(401);
    await login(t, email, 'a brand new passphrase');

    const reuse = await t.http().post('/Session/ResetPassword').send({ token, password: 'yet another passphrase' }).expect(400);
    expect(reuse.body).toMatchObject({ statusCode: 400, errorCode: 'reset_token_invalid' });
    await t.http().get('/Session/ValidateUrlToResetPassword').query({ token }).expect(400);
    await login(t, email, 'a brand new passphrase');
  });

  it('refuses an expired link and leaves the password unchanged', async () => {
    const { user, email, password } = await createUser(t.dataSource, tenant);
    const token = await requestLink(email);
    await t.dataSource.getRepository(PasswordResetToken).update({ userId: user.id }, { expiresAt: new Date(Date.now() - 1000) });

    const check = await t.http().get('/Session/ValidateUrlToResetPassword').query({ token }).expect(400);
    expect(check.body.errorCode).toBe('reset_token_invalid');
    await t.http().post('/Session/ResetPassword').send({ token, password: 'too late passphrase' }).expect(400);
    await login(t, email, password);
  });

  it('only the newest link works', async () => {
    const { email } = await createUser(t.dataSource, tenant);
    const first = await requestLink(email);
    const second = await requestLink(email);
    await t.http().post('/Session/ResetPassword').send({ token: first, password: 'from the old link' }).expect(400);
    await t.http().post('/Session/ResetPassword').send({ token: second, password: 'from the new link' }).expect(200);
    await login(t, email, 'from the new link');
  });

  it('answers the same for an unknown or deactivated account, and mails nothing', async () => {
    const ghost = uniqueEmail('ghost');
    const { user, email: inactive } = await createUser(t.dataSource, tenant, { active: false });
    await t
      .http()
      .post('/Session/SendResetPasswordEmail')
      .send({ email: ghost })
      .expect(200, { statusCode: 200, data: { accepted: true }, errorMessage: null });
    await t
      .http()
      .post('/Session/SendResetPasswordEmail')
      .send({ email: inactive })
      .expect(200, { statusCode: 200, data: { accepted: true }, errorMessage: null });
    // A later mail for a real account has been delivered, so earlier ones would have been too.
    const { email: real } = await createUser(t.dataSource, tenant);
    await requestLink(real);
    expect(inbox.some((mail) => mail.to.includes(ghost) || mail.to.includes(inactive))).toBe(false);
    expect(await t.dataSource.getRepository(PasswordResetToken).countBy({ userId: user.id })).toBe(0);
  });

  it('names the fields of a bad reset request and changes nothing', async () => {
    const { user, email } = await createUser(t.dataSource, tenant);
    const token = await requestLink(email);
    const short = await t.http().post('/Session/ResetPassword').send({ token, password: 'short' }).expect(400);
    expect(short.body.errorMessage).toBe('password must be longer than or equal to 8 characters');
    const missing = await t.http().post('/Session/ResetPassword').send({ password: 'long enough passphrase' }).expect(400);
    expect(missing.body.errorMessage).toBe('token must be a string');
    const badEmail = await t.http().post('/Session/SendResetPasswordEmail').send({ email: 'not-an-email' }).expect(400);
    expect(badEmail.body.errorMessage).toBe('email must be an email');
    // The link survived the bad attempts.
    await t.http().get('/Session/ValidateUrlToResetPassword').query({ token }).expect(200);
    expect((await t.dataSource.getRepository(User).findOneByOrFail({ id: user.id })).tokenVersion).toBe(0);
  });
});
