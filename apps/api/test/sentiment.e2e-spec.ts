import 'reflect-metadata';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { QUEUES, type SentimentAlertView, type SentimentReport, type StartChatResult, type ConversationView } from '@centralita/contracts';
import { BullModule } from '@nestjs/bullmq';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { eventually } from '../../../test/support/eventually';
import { SENTIMENT_DB, SentimentProcessor } from '../../worker/src/sentiment/sentiment.processor';
import { scoreMessage, scoreMessages } from '../../worker/src/sentiment/sentiment-store';
import { connectStaff, createCampaign, createLine, createStaff, createTenant, data, record, type StaffMember } from './support/realtime';
import { bearer, startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(120_000);

/** Runs a child of test/support (register-ts) to its end: its exit signal and output. */
function runChild(script: string, args: string[]): Promise<{ signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['-r', path.join(__dirname, 'support/register-ts.cjs'), path.join(__dirname, 'support', script), ...args],
    {
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (_code, signal) => resolve({ signal, stdout, stderr })));
}

/** The worker's sentiment processor alone, on the run's Redis prefix and database. */
@Module({
  imports: [
    BullModule.forRoot({
      prefix: process.env.QUEUE_PREFIX,
      connection: { url: process.env.REDIS_URL, maxRetriesPerRequest: null, disconnectTimeout: 500 },
    }),
    BullModule.registerQueue({ name: QUEUES.sentiment }),
  ],
  providers: [
    {
      provide: SENTIMENT_DB,
      useFactory: () => new DataSource({ type: 'postgres', url: process.env.DATABASE_URL, synchronize: false, extra: { max: 2 } }),
    },
    SentimentProcessor,
  ],
})
class SentimentWorkerModule {}

describe('sentiment of customer messages (worker job, real Redis and PostgreSQL)', () => {
  let t: TestApp;
  let worker: INestApplicationContext;
  let lineId: string;
  let campaignId: string;
  let agent: StaffMember;
  let supervisor: StaffMember;
  const closers: { close: () => void }[] = [];

  const saved = { poll: process.env.OUTBOX_POLL_MS, stale: process.env.OUTBOX_STALE_MS };

  beforeAll(async () => {
    // The poller takes over a dead process's rows quickly (the crash test).
    process.env.OUTBOX_POLL_MS = '200';
    process.env.OUTBOX_STALE_MS = '300';
    t = await startTestApp();
    worker = await NestFactory.createApplicationContext(SentimentWorkerModule, { logger: ['error'] });
    await worker.init();
    const tenant = await createTenant(t.dataSource);
    lineId = await createLine(t.dataSource, tenant, 'Soporte');
    campaignId = await createCampaign(t.dataSource, tenant, 2);
    agent = await createStaff(t, tenant, 'AGENT', [lineId]);
    supervisor = await createStaff(t, tenant, 'SUPER');
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId });
  });

  afterAll(async () => {
    for (const closer of closers) closer.close();
    await worker?.close();
    await t?.close();
    process.env.OUTBOX_POLL_MS = saved.poll;
    process.env.OUTBOX_STALE_MS = saved.stale;
  });

  async function chat(name: string): Promise<StartChatResult> {
    const started = data<StartChatResult>(await t.http().post('/api/webchat/conversations').send({ attentionLineId: lineId, name }));
    data<ConversationView>(
      await t
        .http()
        .post('/api/webchat/conversation/menu')
        .set(bearer(started.visitorToken))
        .send({ queryTypeId: 'support', submenuId: 'x' }),
    );
    return started;
  }

  const say = async (visitorToken: string, text: string) =>
    data<{ id: string }>(await t.http().post('/api/webchat/conversation/messages').set(bearer(visitorToken)).send({ text }));

  const stored = async (id: string) =>
    (
      (await t.dataSource.query(`SELECT sentiment_score, sentiment_label FROM messages WHERE id = $1`, [id])) as {
        sentiment_score: number | null;
        sentiment_label: string | null;
      }[]
    )[0]!;

  it('scores Spanish and English customer messages with the expected sign, and never the agent’s', async () => {
    const spanish = await chat('Lucía');
    const english = await chat('John');
    const es = await say(spanish.visitorToken, 'Muchas gracias, el servicio es excelente y estoy muy contento');
    const en = await say(english.visitorToken, 'This is terrible, awful service, I hate it');
    const reply = data<{ id: string }>(
      await t
        .http()
        .post(`/api/agent/conversations/${spanish.conversation.id}/messages`)
        .set(bearer(agent.token))
        .send({ text: 'Horrible error, lo siento' }),
    );
    await eventually(async () => expect((await stored(es.id)).sentiment_label).toBe('positive'), { timeoutMs: 30_000 });
    await eventually(async () => expect((await stored(en.id)).sentiment_label).toBe('negative'), { timeoutMs: 30_000 });
    expect((await stored(es.id)).sentiment_score).toBeGreaterThan(0);
    expect((await stored(en.id)).sentiment_score).toBeLessThan(0);
    expect((await stored(en.id)).sentiment_score).toBeGreaterThanOrEqual(-1);
    expect(await stored(reply.id)).toEqual({ sentiment_score: null, sentiment_label: null });
  });

  it('pushes an alert to supervisors when a conversation turns negative, once, and lists it on the dashboard', async () => {
    const board = await connectStaff(t.url, supervisor.token);
    closers.push(board);
    const received = record(board);
    const angry = await chat('Marta');
    const first = await say(angry.visitorToken, 'Hola, tengo una pregunta');
    await eventually(async () => expect((await stored(first.id)).sentiment_label).toBe('neutral'), { timeoutMs: 30_000 });
    const second = await say(angry.visitorToken, 'Esto es horrible, estoy muy enfadado, el servicio es pésimo');
    await eventually(async () => expect((await stored(second.id)).sentiment_label).toBe('negative'), { timeoutMs: 30_000 });
    const alerts = () =>
      received
        .filter((entry) => entry.event === 'sentiment.alert')
        .map((entry) => entry.data as SentimentAlertView)
        .filter((view) => view.conversationId === angry.conversation.id);
    await eventually(() => expect(alerts()).toHaveLength(1), { timeoutMs: 30_000 });
    expect(alerts()[0]).toMatchObject({ customerName: 'Marta', attentionLineId: lineId });
    expect(alerts()[0]!.rolling).toBeLessThan(-0.25);

    // Still negative: no second alert; scoring the same message again changes nothing.
    const third = await say(angry.visitorToken, 'Horrible, pésimo');
    await eventually(async () => expect((await stored(third.id)).sentiment_label).toBe('negative'), { timeoutMs: 30_000 });
    expect(await scoreMessage(t.dataSource, third.id)).toBe('skipped');

    const now = Date.now();
    const report = data<SentimentReport>(
      await t
        .http()
        .get('/api/dashboards/sentiment')
        .query({ from: now - 3_600_000, to: now + 60_000 })
        .set(bearer(supervisor.token)),
    );
    expect(report.turningNegative.map((row) => row.conversationId)).toContain(angry.conversation.id);
    const line = report.byLine.find((group) => group.key === lineId)!;
    expect(line.messages).toBe(line.positive + line.neutral + line.negative);
    expect(line.negative).toBeGreaterThanOrEqual(3);
    expect(report.overall.messages).toBe(line.messages);
    expect(alerts()).toHaveLength(1);
  });

  it('scores a customer message whose API process died between commit and publish (the request is in the outbox)', async () => {
    const dying = await chat('Pablo');
    const text = 'Gracias, excelente atención, muy amables';
    const child = await runChild('message-then-die.child.ts', [dying.conversation.id, dying.conversation.tenantId, text]);
    expect(child.stderr).toBe('');
    expect(child.signal).toBe('SIGKILL');
    const ids = /committed ([\d,]+)/.exec(child.stdout)![1].split(',');
    // Committed by the dead process, and nothing published: the message and its outbox rows, undelivered.
    const [message] = (await t.dataSource.query(`SELECT id FROM messages WHERE conversation_id = $1 AND text = $2`, [
      dying.conversation.id,
      text,
    ])) as { id: string }[];
    expect(message).toBeDefined();
    const rows = (await t.dataSource.query(`SELECT topic, payload FROM outbox WHERE id = ANY($1::bigint[]) ORDER BY id`, [ids])) as {
      topic: string;
      payload: { queue?: string; jobId?: string; data?: unknown };
    }[];
    expect(rows.find((row) => row.topic === 'job')?.payload).toMatchObject({
      queue: QUEUES.sentiment,
      jobId: `sentiment.${message!.id}`,
      data: { messageId: message!.id, tenantId: dying.conversation.tenantId, conversationId: dying.conversation.id },
    });

    // This process's poller delivers the request once; the worker scores the message.
    await eventually(async () => expect(await stored(message!.id)).toMatchObject({ sentiment_label: 'positive' }), { timeoutMs: 20_000 });
    const delivered = (await t.dataSource.query(`SELECT attempts, delivered_at FROM outbox WHERE id = ANY($1::bigint[])`, [ids])) as {
      attempts: number;
      delivered_at: Date | null;
    }[];
    expect(delivered).toHaveLength(ids.length);
    for (const row of delivered) expect(row).toMatchObject({ attempts: 1, delivered_at: expect.any(Date) });
  });

  it('asks once per stored customer message: a resend under the same client id asks nothing more', async () => {
    const started = await chat('Ana');
    const customer = await say(started.visitorToken, 'Hola, una consulta');
    const requests = async (messageId: string) =>
      (
        (await t.dataSource.query(`SELECT count(*)::int AS n FROM outbox WHERE topic = 'job' AND payload->>'jobId' = $1`, [
          `sentiment.${messageId}`,
        ])) as { n: number }[]
      )[0]!.n;
    expect(await requests(customer.id)).toBe(1);
    // A resend with the same client id stores nothing and asks nothing more.
    const once = data<{ id: string }>(
      await t
        .http()
        .post('/api/webchat/conversation/messages')
        .set(bearer(started.visitorToken))
        .send({ text: 'Otra', clientMessageId: 'c-1' }),
    );
    const again = data<{ id: string }>(
      await t
        .http()
        .post('/api/webchat/conversation/messages')
        .set(bearer(started.visitorToken))
        .send({ text: 'Otra', clientMessageId: 'c-1' }),
    );
    expect(again.id).toBe(once.id);
    expect(await requests(once.id)).toBe(1);
  });

  it('scores several messages in one transaction, deciding each conversation’s alert message by message', async () => {
    const angry = await chat('Rosa');
    const calm = await chat('Iker');
    // Stored without requests (the worker does not race this call), numbered after anything already there.
    const store = async (conversationId: string, text: string) =>
      (
        (await t.dataSource.query(
          `INSERT INTO messages (conversation_id, tenant_id, sequence, sender_kind, text)
           SELECT id, tenant_id, (SELECT COALESCE(max(sequence), 0) + 1 FROM messages WHERE conversation_id = $1), 'customer', $2
           FROM conversations WHERE id = $1 RETURNING id`,
          [conversationId, text],
        )) as { id: string }[]
      )[0]!.id;
    const neutral = await store(angry.conversation.id, 'Hola, tengo una pregunta');
    const negative = await store(angry.conversation.id, 'Esto es horrible, estoy muy enfadado, el servicio es pésimo');
    const stillNegative = await store(angry.conversation.id, 'Horrible, pésimo');
    const positive = await store(calm.conversation.id, 'Muchas gracias, excelente atención');

    // A connection of its own, as the worker's: its transactions are this call's only.
    const db = await new DataSource({
      type: 'postgres',
      url: process.env.DATABASE_URL,
      synchronize: false,
      extra: { max: 1 },
    }).initialize();
    closers.push({ close: () => void db.destroy() });
    const transactions = jest.spyOn(db, 'transaction');
    const outcomes = await scoreMessages(db, [stillNegative, positive, neutral, negative]);
    expect(transactions).toHaveBeenCalledTimes(1);
    // As one at a time in the conversation's order: the second message turns it negative, the third keeps it there.
    expect(outcomes).toEqual(['scored', 'scored', 'scored', 'alerted']);
    expect(await stored(positive)).toMatchObject({ sentiment_label: 'positive' });
    expect(await stored(stillNegative)).toMatchObject({ sentiment_label: 'negative' });

    const alerts = (await t.dataSource.query(
      `SELECT payload FROM outbox WHERE topic = 'socket' AND payload::text LIKE '%sentiment.alert%' AND payload::text LIKE $1`,
      [`%${angry.conversation.id}%`],
    )) as { payload: { emits: { data: SentimentAlertView }[] } }[];
    expect(alerts).toHaveLength(1);
    const scores = await Promise.all([neutral, negative].map(async (id) => (await stored(id)).sentiment_score!));
    expect(alerts[0]!.payload.emits[0]!.data.rolling).toBeCloseTo((scores[0]! + scores[1]!) / 2, 6);
    // Scored already: a second batch changes nothing.
    expect(await scoreMessages(db, [negative, positive])).toEqual(['skipped', 'skipped']);
  });
});
