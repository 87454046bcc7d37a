import { DEFAULT_DASHBOARD_SETTINGS, roomName, type SentimentAlertView } from '@centralita/contracts';
import { insertOutbox, socketEffect } from '@centralita/contracts/server';
import type { DataSource } from 'typeorm';
import { analyseSentiment } from './sentiment-analyser';

/** Customer messages the rolling sentiment averages (the newest scored ones). */
export const ROLLING_MESSAGES = 3;

export type ScoreOutcome = 'scored' | 'alerted' | 'skipped';

/** A scored customer message as the rolling average reads it. */
interface Scored {
  score: number;
  sequence: number;
  createdAt: Date;
}

/** The mean of the newest ROLLING_MESSAGES scored messages (by sequence), and the newest one's time. */
function rollingOf(scored: Scored[]): { rolling: number | null; lastAt: Date | null } {
  const recent = [...scored].sort((x, y) => y.sequence - x.sequence).slice(0, ROLLING_MESSAGES);
  if (recent.length === 0) return { rolling: null, lastAt: null };
  const lastAt = recent.reduce((newest, one) => (one.createdAt > newest ? one.createdAt : newest), recent[0].createdAt);
  return { rolling: recent.reduce((sum, one) => sum + one.score, 0) / recent.length, lastAt };
}

/**
 * Scores one customer message (scoreMessages for one).
 */
export async function scoreMessage(db: DataSource, messageId: string): Promise<ScoreOutcome> {
  const [outcome] = await scoreMessages(db, [messageId]);
  return outcome;
}

/**
 * Scores customer messages and stores score + label on their rows, many in one transaction of a
 * few statements (the worker gathers the requests waiting: SentimentBatcher). When a
 * conversation's rolling sentiment (mean of its last three scored customer messages) crosses the
 * client's threshold downwards while it is still open, an outbox row pushes `sentiment.alert` to
 * the tenant's supervisors (the API's relay delivers rows written by other processes).
 * Idempotent: an already scored message is skipped, and per-conversation advisory locks keep two
 * transactions from both raising one conversation's alert. Several messages of one conversation
 * are taken in their order, so "crossed" is still decided message by message. Answers one outcome
 * per id, in order.
 */
export async function scoreMessages(db: DataSource, messageIds: string[]): Promise<ScoreOutcome[]> {
  return db.transaction(async (manager) => {
    const found = (await manager.query(`SELECT id, conversation_id FROM messages WHERE id = ANY($1::uuid[]) AND sender_kind = 'customer'`, [
      messageIds,
    ])) as { id: string; conversation_id: string }[];
    if (found.length === 0) return messageIds.map(() => 'skipped' as const);
    // In one order (sorted) so two batches sharing conversations wait for each other instead of deadlocking.
    const conversationIds = [...new Set(found.map((row) => row.conversation_id))].sort();
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext(c)) FROM unnest($1::text[]) WITH ORDINALITY AS l(c, n) ORDER BY n`, [
      conversationIds,
    ]);
    // Under the locks: what is still unscored, each conversation's newest scored messages, its alert facts and its client's threshold.
    const [facts] = (await manager.query(
      `SELECT
         (SELECT COALESCE(json_agg(json_build_object('id', m.id, 'conversationId', m.conversation_id, 'text', m.text,
            'sequence', m.sequence, 'createdAt', m.created_at)), '[]'::json)
          FROM messages m WHERE m.id = ANY($1::uuid[]) AND m.sender_kind = 'customer' AND m.sentiment_score IS NULL) AS unscored,
         (SELECT COALESCE(json_agg(json_build_object('conversationId', r.conversation_id, 'score', r.score,
            'sequence', r.sequence, 'createdAt', r.created_at)), '[]'::json)
          FROM unnest($2::uuid[]) AS c(id)
          CROSS JOIN LATERAL (SELECT m.conversation_id, m.sentiment_score AS score, m.sequence, m.created_at FROM messages m
            WHERE m.conversation_id = c.id AND m.sender_kind = 'customer' AND m.sentiment_score IS NOT NULL
            ORDER BY m.sequence DESC LIMIT ${ROLLING_MESSAGES}) r) AS recent,
         (SELECT COALESCE(json_agg(json_build_object('id', c.id, 'tenantId', c.tenant_id, 'customerName', c.customer_name,
            'attentionLineId', c.attention_line_id, 'agentId', c.agent_id, 'status', c.status,
            'threshold', s.settings->'negativeThreshold')), '[]'::json)
          FROM conversations c LEFT JOIN dashboard_settings s ON s.client_id = c.tenant_id WHERE c.id = ANY($2::uuid[])) AS conversations`,
      [messageIds, conversationIds],
    )) as {
      unscored: { id: string; conversationId: string; text: string; sequence: number; createdAt: string }[];
      recent: { conversationId: string; score: number; sequence: number; createdAt: string }[];
      conversations: {
        id: string;
        tenantId: string;
        customerName: string;
        attentionLineId: string | null;
        agentId: string | null;
        status: string;
        threshold: unknown;
      }[];
    }[];
    if (facts.unscored.length === 0) return messageIds.map(() => 'skipped' as const);

    const scores = facts.unscored.map((message) => ({ message, result: analyseSentiment(message.text) }));
    await manager.query(
      `UPDATE messages m SET sentiment_score = s.score, sentiment_label = s.label
       FROM unnest($1::uuid[], $2::float8[], $3::text[]) AS s(id, score, label)
       WHERE m.id = s.id AND m.sentiment_score IS NULL`,
      [scores.map(({ message }) => message.id), scores.map(({ result }) => result.score), scores.map(({ result }) => result.label)],
    );

    const outcomes = new Map<string, ScoreOutcome>();
    const alerts: SentimentAlertView[] = [];
    const recentOf = new Map<string, Scored[]>();
    for (const one of facts.recent) {
      const scored = recentOf.get(one.conversationId) ?? [];
      scored.push({ score: Math.fround(one.score), sequence: one.sequence, createdAt: new Date(one.createdAt) });
      recentOf.set(one.conversationId, scored);
    }
    // One conversation's messages in their order, each moving its rolling average as if scored alone.
    scores.sort((x, y) => x.message.sequence - y.message.sequence);
    for (const { message, result } of scores) {
      outcomes.set(message.id, 'scored');
      const recent = recentOf.get(message.conversationId) ?? [];
      recentOf.set(message.conversationId, recent);
      const before = rollingOf(recent);
      // As the real column stores it, so the average is the one PostgreSQL would take.
      recent.push({ score: Math.fround(result.score), sequence: message.sequence, createdAt: new Date(message.createdAt) });
      const after = rollingOf(recent);
      const conversation = facts.conversations.find((one) => one.id === message.conversationId);
      if (!conversation || conversation.status === 'Closed') continue;
      const threshold = typeof conversation.threshold === 'number' ? conversation.threshold : DEFAULT_DASHBOARD_SETTINGS.negativeThreshold;
      const crossed = after.rolling !== null && after.rolling <= threshold && (before.rolling === null || before.rolling > threshold);
      if (!crossed) continue;
      outcomes.set(message.id, 'alerted');
      alerts.push({
        tenantId: conversation.tenantId,
        conversationId: conversation.id,
        customerName: conversation.customerName,
        attentionLineId: conversation.attentionLineId,
        agentId: conversation.agentId,
        status: conversation.status,
        rolling: after.rolling!,
        lastMessageAt: (after.lastAt ?? new Date()).getTime(),
      });
    }
    // In the scoring transaction; the API's relay pushes them as soon as the commit wakes it.
    if (alerts.length > 0) {
      await insertOutbox(
        manager,
        alerts.map((view) =>
          socketEffect({
            namespace: 'staff',
            rooms: [roomName({ kind: 'tenant', id: view.tenantId })],
            event: 'sentiment.alert',
            data: view,
          }),
        ),
        { wakeRelay: true },
      );
    }
    return messageIds.map((id) => outcomes.get(id) ?? 'skipped');
  });
}
