import type { StartChatResult } from '@centralita/contracts';
import { eventually } from '../../../../test/support/eventually';
import { spawnChild, type ChildWorker } from '../support/processes';
import { connectStaff, connectVisitor, createLine, createStaff, createTenant, data } from '../support/realtime';
import { createSuiteDatabase, type SuiteDatabase } from '../support/suite-database';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * An API process told to stop (SIGTERM, as a rolling deploy or `docker stop` does) while browsers
 * are connected closes their sockets and exits. Nest closes the HTTP server before the
 * onApplicationShutdown hooks, and the server waits for every open connection: while the sockets
 * were closed only in that later hook, the process waited for its clients to leave on their own,
 * that is until it was killed.
 */
describe('an API process stopped with sockets connected', () => {
  let a: TestApp;
  let database: SuiteDatabase | undefined;
  let second: ChildWorker | undefined;
  const PREFIX = `${process.env.QUEUE_PREFIX ?? 'centralita'}-stop`;

  beforeAll(async () => {
    database = await createSuiteDatabase();
    second = spawnChild('api.child.ts', { ...process.env, QUEUE_PREFIX: PREFIX, DATABASE_URL: database.url });
    a = await startTestApp({ queuePrefix: PREFIX, databaseUrl: database.url });
    await second.ready;
  }, 120_000);

  afterAll(async () => {
    if (second && second.child.exitCode === null && second.child.signalCode === null) {
      second.child.kill('SIGKILL');
      await second.exited;
    }
    await a?.close();
    await database?.drop();
  }, 60_000);

  it('closes a staff and a visitor socket and exits, and the clients are told the connection closed', async () => {
    const url = /listening (\S+)/.exec(second!.output())?.[1];
    if (!url) throw new Error(`the second API printed no URL:\n${second!.output()}`);
    const tenant = await createTenant(a.dataSource);
    const line = await createLine(a.dataSource, tenant, 'Stop');
    const supervisor = await createStaff(a, tenant, 'SUPER');
    const started = data<StartChatResult>(await a.http().post('/api/webchat/conversations').send({ attentionLineId: line, name: 'Ana' }));
    const staff = await connectStaff(url, supervisor.token);
    const visitor = await connectVisitor(url, started.visitorToken);
    const disconnected: string[] = [];
    staff.on('disconnect', () => disconnected.push('staff'));
    visitor.on('disconnect', () => disconnected.push('visitor'));
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    void second!.exited.then((result) => (exit = result));

    second!.child.kill('SIGTERM');

    await eventually(() => expect(disconnected.sort()).toEqual(['staff', 'visitor']));
    // It exits by itself (api.child.ts exits 0 once app.close() resolves), not by a later SIGKILL.
    await eventually(() => expect(exit).toEqual({ code: 0, signal: null }), { timeoutMs: 15_000 });
    staff.close();
    visitor.close();
  }, 60_000);
});
