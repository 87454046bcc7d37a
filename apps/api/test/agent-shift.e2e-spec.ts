import type { AgentView } from '@centralita/contracts';
import type { PauseReason } from '../src/modules/conversations/desk.service';
import { createCampaign, createStaff, createTenant, data } from './support/realtime';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';
import { createUser } from './support/factories';

/** What the user form decides for an agent's shift: the campaigns they serve and the pauses they may take. */
describe('an agent starting a shift (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const presenceCampaign = async (userId: string) =>
    ((await t.dataSource.query(`SELECT campaign_id FROM agent_presence WHERE user_id = $1`, [userId])) as { campaign_id: string }[])[0]
      ?.campaign_id;

  it('logs into the first campaign the agent serves, never a deleted one, and refuses one they do not serve', async () => {
    const tenant = await createTenant(t.dataSource);
    const oldest = await createCampaign(t.dataSource, tenant, 2);
    const deleted = await createCampaign(t.dataSource, tenant, 3);
    const served = await createCampaign(t.dataSource, tenant, 4);
    await t.dataSource.query(`UPDATE campaigns SET deleted_at = now() WHERE id = $1`, [deleted]);
    const agent = await createStaff(t, tenant, 'AGENT');
    await t.dataSource.query(`INSERT INTO agent_campaigns (user_id, campaign_id, tenant_id) VALUES ($1, $2, $3), ($1, $4, $3)`, [
      agent.userId,
      deleted,
      tenant.client.id,
      served,
    ]);

    const offered = data<{ id: string }[]>(await t.http().get('/api/agent/campaigns').set(bearer(agent.token)));
    expect(offered.map((campaign) => campaign.id)).toEqual([served]);
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId: oldest }).expect(404);
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId: deleted }).expect(404);
    const view = data<AgentView>(await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({}));
    expect(view.capacity).toBe(4);
    expect(await presenceCampaign(agent.userId)).toBe(served);

    // An agent serving no campaign in particular takes the tenant's first live one.
    const anyone = await createStaff(t, tenant, 'AGENT');
    expect(data<AgentView>(await t.http().post('/api/agent/presence/login').set(bearer(anyone.token)).send({})).capacity).toBe(2);
    expect(await presenceCampaign(anyone.userId)).toBe(oldest);
  });

  it("offers and accepts only the pause reasons the agent is allowed, and everyone's when none were chosen", async () => {
    const tenant = await createTenant(t.dataSource);
    await createCampaign(t.dataSource, tenant, 1);
    await t.dataSource.query(
      `INSERT INTO pause_reasons (tenant_id, code, label, position) VALUES ($1, 'break', 'Break', 1), ($1, 'lunch', 'Lunch', 2)
       ON CONFLICT DO NOTHING`,
      [tenant.client.id],
    );
    const limited = await createStaff(t, tenant, 'AGENT');
    await t.dataSource.query(`INSERT INTO user_pause_reasons (user_id, pause_reason_code, tenant_id) VALUES ($1, 'lunch', $2)`, [
      limited.userId,
      tenant.client.id,
    ]);
    const free = await createStaff(t, tenant, 'AGENT');

    const offered = data<PauseReason[]>(await t.http().get('/api/agent/pause-reasons').set(bearer(limited.token)));
    expect(offered.map((reason) => reason.code)).toEqual(['lunch']);
    const everyone = data<PauseReason[]>(await t.http().get('/api/agent/pause-reasons').set(bearer(free.token)));
    expect(everyone.map((reason) => reason.code)).toEqual(expect.arrayContaining(['break', 'lunch']));

    await t.http().post('/api/agent/presence/login').set(bearer(limited.token)).send({}).expect(200);
    const refused = await t.http().post('/api/agent/presence/pause').set(bearer(limited.token)).send({ reasonId: 'break' });
    expect(refused.status).toBe(409);
    await t.http().post('/api/agent/presence/pause').set(bearer(limited.token)).send({ reasonId: 'lunch' }).expect(200);
  });

  it('gives the agents logged into a campaign its new allowed chats per agent at once', async () => {
    const tenant = await createTenant(t.dataSource);
    const campaign = await createCampaign(t.dataSource, tenant, 2);
    const agent = await createStaff(t, tenant, 'AGENT');
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId: campaign }).expect(200);
    const { email, password } = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
    const admin = (await login(t, email, password)).accessToken;
    const current = data<Record<string, unknown>>(await t.http().get(`/api/campaigns/${campaign}`).set(bearer(admin)));
    const { id: _id, createdAt: _created, updatedAt: _updated, ...input } = current;
    await t
      .http()
      .put(`/api/campaigns/${campaign}`)
      .set(bearer(admin))
      .send({ ...input, allowedChatsPerAgent: 5 })
      .expect(200);
    expect(data<AgentView>(await t.http().get('/api/agent/presence').set(bearer(agent.token))).capacity).toBe(5);
  });
});
