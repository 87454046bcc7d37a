import { deliverStaffBatch, newerView, type LineQueueView, type QueuePositionView, type StaffPush } from '@centralita/contracts';
import { eventually } from '../../../../test/support/eventually';
import { connectBatchedStaff, connectVisitor, createCampaign, createLine, createStaff, createTenant, data } from '../support/realtime';
import type { StaffSocket, VisitorSocket } from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';
import type { StartChatResult } from '@centralita/contracts';

const CUSTOMERS = 10;

/**
 * Issue 18 items 4 and 6(d): two API processes push a line's queue, its customers' positions and
 * the supervisors' views independently, so pushes cross. Every such view carries a version; a
 * client keeping the highest (newerView) sees a customer's position only move forward and ends on
 * what the database says.
 */
describe('versioned views across two API processes', () => {
  let a: TestApp;
  let b: TestApp;
  const sockets: (StaffSocket | VisitorSocket)[] = [];
  const savedLimit = process.env.RATE_LIMIT_WEBCHAT_START_IP;

  beforeAll(async () => {
    process.env.RATE_LIMIT_WEBCHAT_START_IP = '100000';
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await Promise.all([a?.close(), b?.close()]);
    process.env.RATE_LIMIT_WEBCHAT_START_IP = savedLimit;
  });

  it("a waiting customer's position never goes backwards (keeping the highest version), and the line ends empty", async () => {
    const tenant = await createTenant(a.dataSource);
    const line = await createLine(a.dataSource, tenant, 'Versions');
    const campaignId = await createCampaign(a.dataSource, tenant, 1);
    const agents = await Promise.all([0, 1, 2].map(() => createStaff(a, tenant, 'AGENT', [line])));
    const supervisor = await createStaff(a, tenant, 'SUPER');

    // Supervisors on both processes, as the console connects (batched).
    const boards = await Promise.all([a, b].map((t) => connectBatchedStaff(t.url, supervisor.token)));
    const seen: { event: string; data: { version?: number } }[][] = boards.map(() => []);
    boards.forEach((socket, index) => {
      sockets.push(socket);
      socket.onAny((event: string, payload: unknown) => {
        if (event === 'batch') deliverStaffBatch(socket, payload as StaffPush[]);
        else seen[index].push({ event, data: payload as { version?: number } });
      });
    });

    // Customers queue through both processes; each listens on the other one.
    const customers: { id: string; pushes: QueuePositionView[] }[] = [];
    for (let index = 0; index < CUSTOMERS; index++) {
      const [via, listen] = index % 2 === 0 ? [a, b] : [b, a];
      const started = data<StartChatResult>(
        await via
          .http()
          .post('/api/webchat/conversations')
          .send({ attentionLineId: line, name: `C${index}` }),
      );
      const socket = await connectVisitor(listen.url, started.visitorToken);
      sockets.push(socket);
      const pushes: QueuePositionView[] = [];
      socket.on('queue.position', (view) => pushes.push(view));
      await via
        .http()
        .post('/api/webchat/conversation/menu')
        .set(bearer(started.visitorToken))
        .send({ queryTypeId: 'q', submenuId: 's' })
        .expect(200);
      customers.push({ id: started.conversation.id, pushes });
    }

    // Agents of capacity 1 take customers through both processes and close them, freeing room.
    const served = new Set<string>();
    await Promise.all(
      agents.map((agent, index) =>
        (index % 2 === 0 ? a : b).http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200),
      ),
    );
    while (served.size < CUSTOMERS) {
      const active = (await a.dataSource.query(
        `SELECT id, agent_id FROM conversations WHERE attention_line_id = $1 AND status = 'Active'`,
        [line],
      )) as { id: string; agent_id: string }[];
      await Promise.all(
        active.map(async (row, index) => {
          const agent = agents.find((one) => one.userId === row.agent_id)!;
          await (index % 2 === 0 ? b : a)
            .http()
            .post(`/api/agent/conversations/${row.id}/close`)
            .set(bearer(agent.token))
            .send({ disposition: 'sold' })
            .expect(200);
          served.add(row.id);
        }),
      );
      if (active.length === 0)
        await eventually(
          async () => {
            const [{ n }] = await a.dataSource.query(
              `SELECT count(*)::int AS n FROM conversations WHERE attention_line_id = $1 AND status = 'Active'`,
              [line],
            );
            expect(n).toBeGreaterThan(0);
          },
          { timeoutMs: 10_000, intervalMs: 20 },
        );
    }

    for (const customer of customers) {
      // Every push is versioned; what a client keeps (the highest version) only moves forward.
      let held: QueuePositionView | null = null;
      const kept: number[] = [];
      for (const push of customer.pushes) {
        expect(typeof push.version).toBe('number');
        if (newerView(held, push)) {
          held = push;
          kept.push(push.position);
        }
      }
      for (let index = 1; index < kept.length; index++) expect(kept[index]).toBeLessThanOrEqual(kept[index - 1]);
    }

    // What a client keeps at the end is what the database says: nobody waits.
    const board = data<{ queues: LineQueueView[] }>(await a.http().get('/api/supervisor/board').set(bearer(supervisor.token)));
    expect(board.queues.find((queue) => queue.attentionLineId === line)).toMatchObject({ waiting: 0 });
    expect(seen.length).toBe(2);

    // 6(d): the supervisors' pushes of one entity come from both processes, each with its own
    // version. Both boards get every one of them; a board keeping the highest (newerView, whatever
    // order they arrived in) ends on what the database holds last.
    const held = (index: number, event: string, idOf: (data: Record<string, unknown>) => unknown, id: string) => {
      let view: { version: number } | null = null;
      const versions: number[] = [];
      for (const push of seen[index]) {
        if (push.event !== event || idOf(push.data as Record<string, unknown>) !== id) continue;
        const incoming = push.data as { version: number };
        versions.push(incoming.version);
        if (newerView(view, incoming)) view = incoming;
      }
      return { view: view as (Record<string, unknown> & { version: number }) | null, versions };
    };
    const lineId = (view: Record<string, unknown>) => view.attentionLineId;
    await eventually(
      async () => {
        const [{ version }] = (await a.dataSource.query(`SELECT version::int AS version FROM realtime_view_versions WHERE view_key = $1`, [
          `line:${line}`,
        ])) as { version: number }[];
        const boardsHeld = [0, 1].map((index) => held(index, 'queue.updated', lineId, line));
        for (const { view, versions } of boardsHeld) {
          // Each read of the line's queue took its own version: none pushed twice.
          expect(new Set(versions).size).toBe(versions.length);
          expect(view).toMatchObject({ waiting: 0, version });
        }
        // Every push reached both boards, from whichever process read it.
        expect([...boardsHeld[1].versions].sort((x, y) => x - y)).toEqual([...boardsHeld[0].versions].sort((x, y) => x - y));

        const conversations = (await a.dataSource.query(`SELECT id, version, status FROM conversations WHERE id = ANY($1)`, [
          customers.map((customer) => customer.id),
        ])) as { id: string; version: number; status: string }[];
        expect(conversations).toHaveLength(CUSTOMERS);
        for (const row of conversations)
          for (const index of [0, 1]) {
            const { view, versions } = held(index, 'conversation.updated', (data) => data.id, row.id);
            // Every step of the conversation was pushed to the board (at least once), and it keeps the last.
            expect([...new Set(versions)].sort((x, y) => x - y)).toEqual(Array.from({ length: row.version }, (_, i) => i + 1));
            expect(view).toMatchObject({ version: row.version, status: row.status });
          }

        const presences = (await a.dataSource.query(`SELECT user_id, version, status FROM agent_presence WHERE user_id = ANY($1)`, [
          agents.map((agent) => agent.userId),
        ])) as { user_id: string; version: number; status: string }[];
        expect(presences).toHaveLength(agents.length);
        for (const row of presences)
          for (const index of [0, 1])
            expect(held(index, 'agent.updated', (data) => data.agentId, row.user_id).view).toMatchObject({
              version: row.version,
              status: row.status,
            });
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    );
  });
});
