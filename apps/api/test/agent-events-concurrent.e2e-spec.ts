import { MachineHostService } from '../src/modules/machine-host/machine-host.service';
import { createTenant, createUser } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Agent events outside a larger transaction take the host's one-statement path (no row lock, a
 * version check): many events for one agent at once, from two API processes, must still form one
 * unbroken chain of transitions.
 */
describe('concurrent events for one agent across two API processes', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
  });
  afterAll(() => Promise.all([a.close(), b.close()]));

  it('applies each legal event once, refuses the rest, and logs versions 1…n with every from = the previous to', async () => {
    const tenant = await createTenant(a.dataSource);
    const { user } = await createUser(a.dataSource, tenant, { role: 'AGENT' });
    const hostA = a.app.get(MachineHostService);
    const hostB = b.app.get(MachineHostService);
    const actor = { kind: 'agent' as const, id: user.id };
    await hostA.transaction((manager) => hostA.ensureAgent(manager, user.id, tenant.client.id, 2, ['break']));
    await hostA.dispatch('agent', user.id, { type: 'agent.loggedIn', capacity: 2, pauseReasons: ['break'] }, actor);

    // 60 pause / resume events at once, alternating hosts: whichever applies first decides which of
    // the others are still legal; none may be lost half-way or applied on a stale snapshot.
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const host = i % 2 === 0 ? hostA : hostB;
        const event = i % 3 === 0 ? { type: 'agent.resumed' as const } : { type: 'agent.paused' as const, reasonId: 'break' };
        return host.dispatch('agent', user.id, event, actor).then(
          (row) => ({ ok: true as const, version: row.version }),
          (error: { code?: string }) => ({ ok: false as const, code: error.code }),
        );
      }),
    );
    for (const outcome of outcomes) if (!outcome.ok) expect(outcome.code).toBe('illegal_transition');
    const applied = outcomes.filter((outcome) => outcome.ok);
    expect(applied.length).toBeGreaterThan(0);
    // Every applied event got its own version.
    expect(new Set(applied.map((outcome) => outcome.version)).size).toBe(applied.length);

    const log = (await a.dataSource.query(
      `SELECT from_state, to_state, version FROM transition_log WHERE entity_type = 'agent' AND entity_id = $1 ORDER BY version`,
      [user.id],
    )) as { from_state: string; to_state: string; version: number }[];
    expect(log.map((row) => row.version)).toEqual(log.map((_, i) => i + 1));
    for (let i = 1; i < log.length; i++) expect(log[i].from_state).toBe(log[i - 1].to_state);
    const [presence] = (await a.dataSource.query(`SELECT version, status FROM agent_presence WHERE user_id = $1`, [user.id])) as {
      version: number;
      status: string;
    }[];
    expect(presence.version).toBe(log.length);
    expect(presence.version).toBe(2 + applied.length);
    // Each applied event left one outbox row set: the agent's push is among them.
    const pushes = (await a.dataSource.query(
      `SELECT count(*)::int AS n FROM outbox WHERE topic = 'socket' AND payload::text LIKE $1 AND payload::text LIKE '%agent.updated%'`,
      [`%${user.id}%`],
    )) as { n: number }[];
    expect(pushes[0].n).toBe(presence.version - 1);
  });
});
