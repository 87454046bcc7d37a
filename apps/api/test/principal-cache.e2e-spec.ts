import { eventually } from '../../../test/support/eventually';
import { createTenant, createUser } from './support/factories';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

/**
 * The guard keeps each session's state in a per-process cache. These tests run two API
 * processes' worth of apps against one Redis and PostgreSQL: a change made through one must stop
 * the other from accepting the affected tokens.
 */
describe('Principal cache across API processes (e2e)', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  async function agentAndAdmin() {
    const tenant = await createTenant(a.dataSource);
    const agent = await createUser(a.dataSource, tenant, { role: 'AGENT' });
    const admin = await createUser(a.dataSource, tenant, { role: 'ADMIN' });
    return {
      agent,
      agentToken: (await login(a, agent.email, agent.password)).accessToken,
      adminToken: (await login(a, admin.email, admin.password)).accessToken,
    };
  }

  it('refuses on the other process a user deactivated through this one', async () => {
    const { agent, agentToken, adminToken } = await agentAndAdmin();
    await b.http().get('/api/clock').set(bearer(agentToken)).expect(200); // cached on b now
    await b.http().get('/api/clock').set(bearer(agentToken)).expect(200);
    await a.http().patch(`/api/users/${agent.user.id}`).set(bearer(adminToken)).send({ active: false }).expect(200);
    await eventually(async () => {
      const response = await b.http().get('/api/clock').set(bearer(agentToken));
      expect(response.status).toBe(401);
    });
    await a.http().get('/api/clock').set(bearer(agentToken)).expect(401);
  });

  it('refuses on the other process an access token whose session was logged out through this one', async () => {
    const { agent, agentToken } = await agentAndAdmin();
    await b.http().get('/api/clock').set(bearer(agentToken)).expect(200);
    await a.http().post('/api/auth/logout').set(bearer(agentToken)).send({ userId: agent.user.id }).expect(200);
    await eventually(async () => {
      const response = await b.http().get('/api/clock').set(bearer(agentToken));
      expect(response.status).toBe(401);
    });
  });

  it('applies a permission change made through one process on the other', async () => {
    const { agent, adminToken } = await agentAndAdmin();
    const token = (await login(a, agent.email, agent.password)).accessToken;
    await b.http().get('/api/users').set(bearer(token)).expect(403);
    const roles = (await a.http().get('/api/roles/codes').set(bearer(adminToken)).expect(200)).body.data as { id: string; code: string }[];
    const adminRole = roles.find((role) => role.code === 'ADMIN')!;
    await a.http().patch(`/api/users/${agent.user.id}`).set(bearer(adminToken)).send({ roleId: adminRole.id }).expect(200);
    await eventually(async () => {
      await b.http().get('/api/users').set(bearer(token)).expect(200);
    });
  });
});
