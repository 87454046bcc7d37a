import { QUEUES } from '@centralita/contracts';
import { MachineHostService } from '../src/modules/machine-host/machine-host.service';
import { writeVersionedBatch, type VersionedWrite } from '../src/modules/machine-host/versioned-write';
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

  it('group-commits many agents’ events: every chain stays unbroken and each event is logged and pushed once', async () => {
    const tenant = await createTenant(a.dataSource);
    const agents = await Promise.all(Array.from({ length: 24 }, () => createUser(a.dataSource, tenant, { role: 'AGENT' })));
    const hosts = [a.app.get(MachineHostService), b.app.get(MachineHostService)];
    for (const { user } of agents) {
      await hosts[0].transaction((manager) => hosts[0].ensureAgent(manager, user.id, tenant.client.id, 1, ['break']));
      await hosts[0].dispatch(
        'agent',
        user.id,
        { type: 'agent.loggedIn', capacity: 1, pauseReasons: ['break'] },
        { kind: 'agent', id: user.id },
      );
    }
    const statements = [a, b].map((app) => jest.spyOn(app.dataSource.manager, 'query'));
    const rounds = 10;
    // Each agent pauses and resumes in turn, one event at a time, its events alternating between
    // the two processes; all agents at once, so each process's writes gather into shared statements.
    await Promise.all(
      agents.map(async ({ user }, k) => {
        const actor = { kind: 'agent' as const, id: user.id };
        for (let i = 0; i < rounds; i++) {
          const event = i % 2 === 0 ? { type: 'agent.paused' as const, reasonId: 'break' } : { type: 'agent.resumed' as const };
          await hosts[(k + i) % 2].dispatch('agent', user.id, event, actor);
        }
      }),
    );
    const batches = statements.flatMap((spy) => spy.mock.calls.filter(([sql]) => String(sql).trimStart().startsWith('WITH v AS')));
    statements.forEach((spy) => spy.mockRestore());
    expect(batches.length).toBeGreaterThan(0);

    const ids = agents.map(({ user }) => user.id);
    const log = (await a.dataSource.query(
      `SELECT entity_id, from_state, to_state, event, version FROM transition_log WHERE entity_type = 'agent' AND entity_id = ANY($1) ORDER BY entity_id, version`,
      [ids],
    )) as { entity_id: string; from_state: string | null; to_state: string; event: string; version: number }[];
    const presence = (await a.dataSource.query(`SELECT user_id, version, status FROM agent_presence WHERE user_id = ANY($1)`, [ids])) as {
      user_id: string;
      version: number;
      status: string;
    }[];
    for (const id of ids) {
      const chain = log.filter((row) => row.entity_id === id);
      // created, logged in, then the ten events in the order they were sent.
      expect(chain.map((row) => row.version)).toEqual(chain.map((_, i) => i + 1));
      expect(chain.slice(2).map((row) => row.event)).toEqual(
        Array.from({ length: rounds }, (_, i) => (i % 2 === 0 ? 'agent.paused' : 'agent.resumed')),
      );
      for (let i = 1; i < chain.length; i++) expect(chain[i].from_state).toBe(chain[i - 1].to_state);
      const row = presence.find((one) => one.user_id === id)!;
      expect(row).toMatchObject({ version: 2 + rounds, status: 'available' });
    }
    // One agent.updated push per event, each carrying the version it made.
    const pushes = (await a.dataSource.query(
      `SELECT emit->'data'->>'agentId' AS agent, (emit->'data'->>'version')::int AS version
       FROM outbox, jsonb_array_elements(payload->'emits') AS emit
       WHERE topic = 'socket' AND emit->>'event' = 'agent.updated' AND emit->'data'->>'agentId' = ANY($1)`,
      [ids],
    )) as { agent: string; version: number }[];
    for (const id of ids) {
      const versions = pushes
        .filter((push) => push.agent === id)
        .map((push) => push.version)
        .sort((x, y) => x - y);
      expect(versions).toEqual(Array.from({ length: rounds + 1 }, (_, i) => i + 2));
    }
  });

  it('a batch writes the rows whose version still holds and leaves the moved one untouched', async () => {
    const tenant = await createTenant(a.dataSource);
    const agents = await Promise.all(Array.from({ length: 3 }, () => createUser(a.dataSource, tenant, { role: 'AGENT' })));
    const host = a.app.get(MachineHostService);
    for (const { user } of agents) await host.transaction((manager) => host.ensureAgent(manager, user.id, tenant.client.id, 1, ['break']));
    const write = (userId: string, version: number): VersionedWrite => ({
      table: 'agent_presence',
      key: { column: 'user_id', value: userId },
      version,
      set: [
        ['last_event', `batch-test-${userId}`],
        ['state_since', new Date('2026-01-02T03:04:05.000Z')],
      ],
      entity: 'agent',
      record: {
        from: 'loggedOut',
        to: 'loggedOut',
        event: 'batch.test',
        at: Date.parse('2026-01-02T03:04:05.000Z'),
        actor: { kind: 'system' },
      },
      logData: { marker: userId },
      effects: [
        {
          topic: 'socket',
          // Not an event of the map: a marker no client listens to.
          payload: { emits: [{ namespace: 'staff', rooms: [`agent:${userId}`], event: 'batch.test', data: { userId } } as never] },
        },
        // Harmless when the poller delivers it: there is no such timer.
        { topic: 'job.remove', payload: { queue: QUEUES.machineTimers, jobId: `batch-test.${userId}` } },
      ],
    });
    const [first, moved, third] = agents.map(({ user }) => user.id);
    const results = await writeVersionedBatch<{ user_id: string; version: number; last_event: string }>(
      a.dataSource.manager,
      [write(first, 1), write(moved, 7), write(third, 1)],
      { last_event: 'text', state_since: 'timestamptz' },
    );
    expect(results[1]).toBeNull();
    for (const [index, id] of [
      [0, first],
      [2, third],
    ] as const) {
      const result = results[index]!;
      expect(result.row).toMatchObject({ user_id: id, version: 2, last_event: `batch-test-${id}` });
      // Each write's outbox ids are its own rows, in its effects' order.
      expect(result.outboxIds).toHaveLength(2);
      const rows = (await a.dataSource.query(`SELECT id::text, topic, payload FROM outbox WHERE id = ANY($1::bigint[]) ORDER BY id`, [
        result.outboxIds,
      ])) as { id: string; topic: string; payload: { emits?: { data: unknown }[]; jobId?: string } }[];
      expect(rows.map((row) => row.topic)).toEqual(['socket', 'job.remove']);
      expect(rows[0].payload.emits![0].data).toEqual({ userId: id });
      expect(rows[1].payload).toMatchObject({ jobId: `batch-test.${id}` });
      expect(result.records.map((record) => record.id)).toEqual(rows.map((row) => row.id));
    }
    const log = (await a.dataSource.query(
      `SELECT entity_id, version, at, data FROM transition_log WHERE event = 'batch.test' AND entity_id = ANY($1)`,
      [[first, moved, third]],
    )) as { entity_id: string; version: number; at: Date; data: { marker: string } }[];
    expect(log.map((row) => row.entity_id).sort()).toEqual([first, third].sort());
    for (const row of log) {
      expect(row.version).toBe(2);
      expect(row.data).toEqual({ marker: row.entity_id });
      expect(row.at.toISOString()).toBe('2026-01-02T03:04:05.000Z');
    }
    const [untouched] = (await a.dataSource.query(`SELECT version, last_event FROM agent_presence WHERE user_id = $1`, [moved])) as {
      version: number;
      last_event: string;
    }[];
    expect(untouched.version).toBe(1);
    expect(untouched.last_event).not.toContain('batch-test');
    const movedPushes = (await a.dataSource.query(`SELECT count(*)::int AS n FROM outbox WHERE payload::text LIKE $1`, [`%${moved}%`])) as {
      n: number;
    }[];
    expect(movedPushes[0].n).toBe(0);
  });
});
