import { randomBytes } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { eventually } from '../../../test/support/eventually';
import { createWorker } from '../../worker/src/main';
import { createTenant, createUser } from './support/factories';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

describe('Development mailbox (e2e)', () => {
  // Own prefix: this worker (no SMTP) must not take mail jobs meant for the SMTP suite's worker.
  const queuePrefix = `${process.env.QUEUE_PREFIX}-devmail-${randomBytes(3).toString('hex')}`;
  let t: TestApp;
  let worker: INestApplicationContext;

  beforeAll(async () => {
    // Issue 17: the mailbox exists only with DEV_MAILBOX=on, for administrators of the mail's tenant.
    worker = await createWorker({ config: { queuePrefix, smtpUrl: null, devMailbox: true }, logger: ['error'] });
    t = await startTestApp({ queuePrefix, publicUrl: 'http://localhost:5173', devMailbox: true });
  });
  afterAll(async () => {
    await t?.close();
    await worker?.close();
  });

  it("without SMTP the worker keeps the reset mail and GET /api/dev/mailbox shows it to the tenant's administrator", async () => {
    const tenant = await createTenant(t.dataSource);
    const { email } = await createUser(t.dataSource, tenant);
    const admin = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
    const { accessToken } = await login(t, admin.email, admin.password);
    await t.http().post('/Session/SendResetPasswordEmail').send({ email }).expect(200);
    const entries = await eventually(async () => {
      const response = await t.http().get('/api/dev/mailbox').query({ to: email }).set(bearer(accessToken)).expect(200);
      expect(response.body.data).toHaveLength(1);
      return response.body.data;
    });
    expect(entries[0].text).toMatch(/http:\/\/localhost:5173\/session\/resetPassword\/[A-Za-z0-9_-]{43}/);
  });

  it('does not exist in production, nor without DEV_MAILBOX=on', async () => {
    const production = await startTestApp({ queuePrefix, nodeEnv: 'production', devMailbox: true });
    try {
      await production.http().get('/api/dev/mailbox').expect(404);
    } finally {
      await production.close();
    }
    const off = await startTestApp({ queuePrefix });
    try {
      await off.http().get('/api/dev/mailbox').expect(404);
    } finally {
      await off.close();
    }
  });
});
