import type { PredefinedMessageSummary } from '@centralita/contracts';
import { createLine, createStaff, createTenant, data } from './support/realtime';
import { bearer, startTestApp, type TestApp } from './support/test-app';

describe('GET /api/predefined-messages/usable (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('gives an agent the tenant’s templates, those of the lines they serve and their own, nothing else', async () => {
    const tenant = await createTenant(t.dataSource);
    const served = await createLine(t.dataSource, tenant, 'Served');
    const notServed = await createLine(t.dataSource, tenant, 'Not served');
    const agent = await createStaff(t, tenant, 'AGENT', [served]);
    const colleague = await createStaff(t, tenant, 'AGENT', [served]);
    const foreign = await createTenant(t.dataSource);
    const insert = (clientId: string, shortcut: string, scope: string, lineId: string | null, owner: string | null) =>
      t.dataSource.query(
        `INSERT INTO predefined_messages (client_id, message, shortcut, scope, attention_line_id, owner_user_id) VALUES ($1, $2, $3, $4, $5, $6)`,
        [clientId, `Text of ${shortcut}`, shortcut, scope, lineId, owner],
      );
    await insert(tenant.client.id, 'hello', 'tenant', null, null);
    await insert(tenant.client.id, 'served', 'line', served, null);
    await insert(tenant.client.id, 'other-line', 'line', notServed, null);
    await insert(tenant.client.id, 'mine', 'personal', null, agent.userId);
    await insert(tenant.client.id, 'theirs', 'personal', null, colleague.userId);
    await insert(foreign.client.id, 'foreign', 'tenant', null, null);

    const usable = data<PredefinedMessageSummary[]>(await t.http().get('/api/predefined-messages/usable').set(bearer(agent.token)));
    expect(usable.map((message) => message.shortcut)).toEqual(['hello', 'mine', 'served']);
    // The management list stays closed to agents.
    await t.http().get('/api/predefined-messages').set(bearer(agent.token)).expect(403);
  });

  it('leaves out deleted templates', async () => {
    const tenant = await createTenant(t.dataSource);
    const agent = await createStaff(t, tenant, 'AGENT');
    await t.dataSource.query(
      `INSERT INTO predefined_messages (client_id, message, shortcut, scope, deleted_at) VALUES ($1, 'Old', 'old', 'tenant', now()), ($1, 'New', 'new', 'tenant', NULL)`,
      [tenant.client.id],
    );
    const usable = data<PredefinedMessageSummary[]>(await t.http().get('/api/predefined-messages/usable').set(bearer(agent.token)));
    expect(usable.map((message) => message.shortcut)).toEqual(['new']);
  });
});
