import type { TransferTargets } from '@centralita/contracts';
import { PrincipalCacheService } from '../src/modules/auth/principal-cache.service';
import { createCampaign, createLine, createStaff, createTenant, data } from './support/realtime';
import { bearer, startTestApp, type TestApp } from './support/test-app';

describe('GET /api/agent/transfer-targets (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('lists the tenant’s lines and the logged-in colleagues, never the caller or another tenant', async () => {
    const tenant = await createTenant(t.dataSource);
    const support = await createLine(t.dataSource, tenant, 'Support');
    const sales = await createLine(t.dataSource, tenant, 'Sales');
    await createCampaign(t.dataSource, tenant, 3);
    const me = await createStaff(t, tenant, 'AGENT', [support]);
    const colleague = await createStaff(t, tenant, 'AGENT', [sales]);
    const absent = await createStaff(t, tenant, 'AGENT', [sales]);
    const foreign = await createTenant(t.dataSource);
    await createLine(t.dataSource, foreign, 'Foreign line');
    await t.http().post('/api/agent/presence/login').set(bearer(me.token)).send({}).expect(200);
    await t.http().post('/api/agent/presence/login').set(bearer(colleague.token)).send({}).expect(200);

    const targets = data<TransferTargets>(await t.http().get('/api/agent/transfer-targets').set(bearer(me.token)));
    expect(targets.lines).toEqual([
      { id: sales, name: 'Sales' },
      { id: support, name: 'Support' },
    ]);
    expect(targets.agents.map((agent) => agent.id)).toEqual([colleague.userId]);
    expect(targets.agents[0]).toMatchObject({ status: expect.any(String), activeCount: 0, capacity: 3 });
    expect(targets.agents.some((agent) => agent.id === absent.userId)).toBe(false);
  });

  it('is refused to staff without conversations.handle', async () => {
    const tenant = await createTenant(t.dataSource);
    const supervisor = await createStaff(t, tenant, 'SUPER');
    await t.dataSource.query(`UPDATE roles SET permissions = '{dashboard.view}' WHERE id = (SELECT role_id FROM users WHERE id = $1)`, [
      supervisor.userId,
    ]);
    await t.app.get(PrincipalCacheService).refresh(supervisor.userId);
    await t.http().get('/api/agent/transfer-targets').set(bearer(supervisor.token)).expect(403);
  });
});
