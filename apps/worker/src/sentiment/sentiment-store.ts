import { DEFAULT_DASHBOARD_SETTINGS, roomName, type SentimentAlertView } from '@centralita/contracts';
import { insertOutbox, socketEffect } from '@centralita/contracts/server';
import type { DataSource, EntityManager } from 'typeorm';
import { analyseSentiment } from './sentiment-analyser';

/** Customer messages the rolling sentiment averages (the newest scored ones). */
export const ROLLING_MESSAGES = 3;

const ROLLING_SQL = `SELECT avg(score)::float8 AS rolling, max(created_at) AS last_at FROM (
    SELECT sentiment_score AS score, created_at FROM messages
     WHERE conversation_id = $1 AND sender_kind = 'customer' AND sentiment_score IS NOT NULL
     ORDER BY sequence DESC LIMIT ${ROLLING_MESSAGES}) recent`;

async function rolling(manager: EntityManager, conversationId: string): Promise<{ rolling: number | null; lastAt: Date | null }> {
  const [row] = (await manager.query(ROLLING_SQL, [conversationId])) as { rolling: number | null; last_at: Date | null }[];
  return { rolling: row?.rolling ?? null, lastAt: row?.last_at ?? null };
}

export type ScoreOutcome = 'scored' | 'alerted' | 'skipped';

/**
 * Scores one customer message and stores score + label on its row. When the conversation's
 * rolling sentiment (mean of its last three scored customer messages) crosses the client's
 * threshold downwards while it is still open, an outbox row pushes `sentiment.alert` to the
 * tenant's supervisors (the API's relay delivers rows written by other processes). Idempotent:
 * an already scored message is skipped, and a per-conversation advisory lock keeps two messages
 * of one conversation from both raising the alert.
 */
export async function scoreMessage(db: DataSource, messageId: string): Promise<ScoreOutcome> {
  return db.transaction(async (manager) => {
    const [message] = (await manager.query(
      `SELECT id, conversation_id, tenant_id, text, sentiment_score FROM messages WHERE id = $1 AND sender_kind = 'customer'`,
      [messageId],
    )) as { id: string; conversation_id: string; tenant_id: string; text: string; sentiment_score: number | null }[];
    if (!message) return 'skipped';
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [message.conversation_id]);
    const [fresh] = (await manager.query(`SELECT sentiment_score FROM messages WHERE id = $1`, [messageId])) as {
      sentiment_score: number | null;
    }[];
    if (fresh?.sentiment_score !== null && fresh?.sentiment_score !== undefined) return 'skipped';

    const result = analyseSentiment(message.text);
    const before = await rolling(manager, message.conversation_id);
    await manager.query(`UPDATE messages SET sentiment_score = $2, sentiment_label = $3 WHERE id = $1`, [
      messageId,
      result.score,
      result.label,
    ]);
    const after = await rolling(manager, message.conversation_id);

    const [settings] = (await manager.query(
      `SELECT settings->'negativeThreshold' AS threshold FROM dashboard_settings WHERE client_id = $1`,
      [message.tenant_id],
    )) as { threshold: number | null }[];
    const threshold = typeof settings?.threshold === 'number' ? settings.threshold : DEFAULT_DASHBOARD_SETTINGS.negativeThreshold;
    const crossed = after.rolling !== null && after.rolling <= threshold && (before.rolling === null || before.rolling > threshold);
    if (!crossed) return 'scored';
    const [conversation] = (await manager.query(
      `SELECT id, tenant_id, customer_name, attention_line_id, agent_id, status FROM conversations WHERE id = $1 AND status <> 'Closed'`,
      [message.conversation_id],
    )) as {
      id: string;
      tenant_id: string;
      customer_name: string;
      attention_line_id: string | null;
      agent_id: string | null;
      status: string;
    }[];
    if (!conversation) return 'scored';
    const view: SentimentAlertView = {
      tenantId: conversation.tenant_id,
      conversationId: conversation.id,
      customerName: conversation.customer_name,
      attentionLineId: conversation.attention_line_id,
      agentId: conversation.agent_id,
      status: conversation.status,
      rolling: after.rolling!,
      lastMessageAt: new Date(after.lastAt ?? Date.now()).getTime(),
    };
    // In the scoring transaction; the API's relay pushes it (its poller takes rows it did not write).
    await insertOutbox(manager, [
      socketEffect({
        namespace: 'staff',
        rooms: [roomName({ kind: 'tenant', id: conversation.tenant_id })],
        event: 'sentiment.alert',
        data: view,
      }),
    ]);
    return 'alerted';
  });
}
