import { READY_AGENT_STATUSES, sqlStatusList } from '@centralita/domain';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** Where a view is read from: the pool's manager, or the transaction holding the view's version (see QueueViews.withViewVersion). */
export type Db = { query: (sql: string, parameters?: unknown[]) => Promise<any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Presence statuses ready for conversations, as an SQL list. */
const READY_SQL = sqlStatusList(READY_AGENT_STATUSES);

/** The version a REST answer carries: the last one pushed for that view (see VIEW_VERSIONS in the contract). */
const VIEW_VERSION_SQL = (key: string) =>
  `COALESCE((SELECT vv.version FROM realtime_view_versions vv WHERE vv.view_key = ${key}), 0)::text`;

/** A line's queue counts, as its view is built from them. */
export interface LineQueueRow {
  name: string;
  client_id: string;
  campaign_id: string | null;
  version: string;
  waiting: number;
  oldest: Date | null;
  available: number;
}

/** A campaign's queue counts, over its lines and the agents logged into it. */
export interface CampaignQueueRow {
  id: string;
  name: string;
  version: string;
  lines: number;
  waiting: number;
  oldest: Date | null;
  available: number;
}

/** A waiting conversation as the positions read it, with the line view's version. */
export interface WaitingRow {
  id: string;
  version: string;
  channel: string | null;
}

/** Customers waiting on a line now, and those who joined it in the last hour (waiting or not). */
export interface LineArrivals {
  waiting: number;
  arrivals: number;
}

/**
 * The statements of the queue views: the counts behind a line's and a campaign's queue, the
 * waiting order, what the wait estimates read, and realtime_view_versions (each view's version and
 * what its customers were last told). Every method runs on the Db it is given (the pool's manager,
 * or the transaction holding the view's version). PgQueueViewRows is the real one; FakeRoutingRows
 * (routing-rows.fake.ts) answers the same from memory.
 */
export abstract class QueueViewRows {
  /** The line's counts, undefined for a line that does not exist. */
  abstract lineQueue(db: Db, attentionLineId: string): Promise<LineQueueRow | undefined>;
  /** Counts of the tenant's campaigns not deleted (only `campaignIds`, when given), by name then id. */
  abstract campaignQueues(db: Db, tenantId: string, campaignIds: string[] | null): Promise<CampaignQueueRow[]>;
  /** The line's waiting conversations in serving order: priority, then waiting time, then id. */
  abstract waitingInOrder(db: Db, attentionLineId: string): Promise<WaitingRow[]>;
  abstract arrivals(db: Db, attentionLineId: string): Promise<LineArrivals | undefined>;
  /** Seconds from assignment to close of the line's last 50 closed conversations, latest first. */
  abstract handleTimes(db: Db, attentionLineId: string): Promise<number[]>;
  /** Capacity summed over the line's ready agents (paused or away ones serve nobody). */
  abstract servingSlots(db: Db, attentionLineId: string): Promise<number>;
  /** Moves the view's version to the next value of the shared sequence, locking its row; answers what its customers were last told. */
  abstract nextViewVersion(manager: EntityManager, viewKey: string): Promise<Record<string, string>>;
  abstract storeTold(manager: EntityManager, viewKey: string, told: Record<string, string>): Promise<void>;
}

/** The queue views' statements in PostgreSQL. */
@Injectable()
export class PgQueueViewRows extends QueueViewRows {
  async lineQueue(db: Db, attentionLineId: string): Promise<LineQueueRow | undefined> {
    const [row] = (await db.query(
      `SELECT l.name, l.client_id, l.campaign_id, ${VIEW_VERSION_SQL(`'line:' || l.id`)} AS version,
         (SELECT count(*)::int FROM conversations c WHERE c.attention_line_id = l.id AND c.status = 'LiningUp') AS waiting,
         (SELECT min(c.queued_at) FROM conversations c WHERE c.attention_line_id = l.id AND c.status = 'LiningUp') AS oldest,
         (SELECT count(*)::int FROM agent_presence p JOIN agent_attention_lines a ON a.user_id = p.user_id
            WHERE a.attention_line_id = l.id AND p.status IN ${READY_SQL} AND p.active_count < p.capacity) AS available
       FROM attention_lines l WHERE l.id = $1`,
      [attentionLineId],
    )) as LineQueueRow[];
    return row;
  }

  async campaignQueues(db: Db, tenantId: string, campaignIds: string[] | null): Promise<CampaignQueueRow[]> {
    return (await db.query(
      `SELECT c.id, c.name, ${VIEW_VERSION_SQL(`'campaign:' || c.id`)} AS version,
         (SELECT count(*)::int FROM attention_lines l WHERE l.campaign_id = c.id AND l.deleted_at IS NULL) AS lines,
         (SELECT count(*)::int FROM conversations v JOIN attention_lines l ON l.id = v.attention_line_id
            WHERE l.campaign_id = c.id AND v.status = 'LiningUp') AS waiting,
         (SELECT min(v.queued_at) FROM conversations v JOIN attention_lines l ON l.id = v.attention_line_id
            WHERE l.campaign_id = c.id AND v.status = 'LiningUp') AS oldest,
         (SELECT count(*)::int FROM agent_presence p
            WHERE p.campaign_id = c.id AND p.status IN ${READY_SQL} AND p.active_count < p.capacity) AS available
       FROM campaigns c
       WHERE c.client_id = $1 AND c.deleted_at IS NULL AND ($2::uuid[] IS NULL OR c.id = ANY($2::uuid[]))
       ORDER BY c.name, c.id`,
      [tenantId, campaignIds],
    )) as CampaignQueueRow[];
  }

  async waitingInOrder(db: Db, attentionLineId: string): Promise<WaitingRow[]> {
    return (await db.query(
      // $1 is typed once for both uses: a bare `'line:' || $1` would make it text against a uuid column.
      `SELECT id, channel, ${VIEW_VERSION_SQL(`'line:' || $1::uuid`)} AS version FROM conversations
       WHERE attention_line_id = $1::uuid AND status = 'LiningUp' ORDER BY priority DESC, queued_at, id`,
      [attentionLineId],
    )) as WaitingRow[];
  }

  async arrivals(db: Db, attentionLineId: string): Promise<LineArrivals | undefined> {
    const [row] = (await db.query(
      `SELECT count(*) FILTER (WHERE status = 'LiningUp')::int AS waiting,
           count(*) FILTER (WHERE queued_at > now() - interval '1 hour')::int AS arrivals
         FROM conversations WHERE attention_line_id = $1 AND (status = 'LiningUp' OR queued_at > now() - interval '1 hour')`,
      [attentionLineId],
    )) as LineArrivals[];
    return row;
  }

  async handleTimes(db: Db, attentionLineId: string): Promise<number[]> {
    const handled: { seconds: number }[] = await db.query(
      `SELECT EXTRACT(EPOCH FROM (c.closed_at - to_timestamp((c.snapshot->'context'->>'assignedAt')::bigint / 1000.0)))::float AS seconds
       FROM conversations c WHERE c.attention_line_id = $1 AND c.closed_at IS NOT NULL AND c.snapshot->'context'->>'assignedAt' IS NOT NULL
       ORDER BY c.closed_at DESC LIMIT 50`,
      [attentionLineId],
    );
    return handled.map((row) => row.seconds);
  }

  async servingSlots(db: Db, attentionLineId: string): Promise<number> {
    const [row] = (await db.query(
      `SELECT COALESCE(sum(p.capacity), 0)::int AS slots FROM agent_presence p JOIN agent_attention_lines a ON a.user_id = p.user_id
       WHERE a.attention_line_id = $1 AND p.status IN ${READY_SQL}`,
      [attentionLineId],
    )) as { slots: number }[];
    return row?.slots ?? 0;
  }

  async nextViewVersion(manager: EntityManager, viewKey: string): Promise<Record<string, string>> {
    const [row] = (await manager.query(
      `INSERT INTO realtime_view_versions (view_key, version) VALUES ($1, nextval('realtime_view_version_seq'))
         ON CONFLICT (view_key) DO UPDATE SET version = nextval('realtime_view_version_seq') RETURNING told`,
      [viewKey],
    )) as { told: Record<string, string> }[];
    return row.told;
  }

  async storeTold(manager: EntityManager, viewKey: string, told: Record<string, string>): Promise<void> {
    await manager.query(`UPDATE realtime_view_versions SET told = $2 WHERE view_key = $1`, [viewKey, JSON.stringify(told)]);
  }
}
