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
  });
});
