import { clockOffset, type ClockReading, type Envelope } from '@centralita/contracts';
import { createTenant, createUser } from './support/factories';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

describe('Clock (e2e)', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp();
    const agent = await createUser(t.dataSource, await createTenant(t.dataSource));
    token = (await login(t, agent.email, agent.password)).accessToken;
  });
  afterAll(() => t.close());

  it('answers the server time and echoes the caller’s clientTime', async () => {
    const sentAt = Date.now();
    const response = await t.http().get(`/api/clock?clientTime=${sentAt}`).set(bearer(token)).expect(200);
    const reading = (response.body as Envelope<ClockReading>).data!;
    expect(reading.clientTime).toBe(sentAt);
    expect(reading.serverTime).toBeGreaterThanOrEqual(sentAt);
    // Same machine, same clock: the estimated offset is within the round trip.
    expect(Math.abs(clockOffset(reading, Date.now()))).toBeLessThan(Date.now() - sentAt + 1);
  });

  it('refuses a clientTime that is not a whole number, naming the field', async () => {
    const response = await t.http().get('/api/clock?clientTime=soon').set(bearer(token)).expect(400);
    expect(response.body.errorMessage).toMatch(/^clientTime must /);
  });

  it('refuses callers without a session', async () => {
    await t.http().get('/api/clock').expect(401);
  });
});
