import { createHash } from 'node:crypto';
import { QUEUES, outboxJob } from '@centralita/contracts';
import { insertOutbox, jobEffect } from '@centralita/contracts/server';
import type { DataSource } from 'typeorm';

/** channel_events.delivery_key is at most this long (the webhook path's limit). */
const DELIVERY_KEY_MAX = 300;

/** Where a reader is in one folder: the UIDVALIDITY it read under and the last UID stored. */
export interface MailboxPosition {
  uidValidity: string;
  lastUid: number;
}

/**
 * The reader's writes: its position per (account, folder), and each mail stored once as a raw
 * channel event with its channel-inbound job, in one transaction with the new position, so a
 * process killed at any point neither loses a mail nor stores one twice.
 */
export class MailboxStore {
  constructor(private readonly db: DataSource) {}

  /**
   * The position to read from. A folder seen for the first time, or under a new UIDVALIDITY, is
   * read from UID 0: every mail is looked at, the delivery keys store none twice, and the reader
   * skips mail that arrived before the account was connected (history, not new customers).
   */
  async position(account: { id: string; tenantId: string }, folder: string, current: { uidValidity: string }): Promise<MailboxPosition> {
    const [stored] = (await this.db.query(`SELECT uid_validity, last_uid FROM email_mailbox_state WHERE account_id = $1 AND folder = $2`, [
      account.id,
      folder,
    ])) as { uid_validity: string; last_uid: string }[];
    if (stored && stored.uid_validity === current.uidValidity)
      return { uidValidity: stored.uid_validity, lastUid: Number(stored.last_uid) };
    const lastUid = 0;
    await this.db.query(
      `INSERT INTO email_mailbox_state (account_id, folder, tenant_id, uid_validity, last_uid) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (account_id, folder) DO UPDATE SET uid_validity = EXCLUDED.uid_validity, last_uid = EXCLUDED.last_uid, updated_at = now()`,
      [account.id, folder, account.tenantId, current.uidValidity, lastUid],
    );
    return { uidValidity: current.uidValidity, lastUid };
  }

  /** Stores one mail (once per delivery key) with its processing job, and moves the position past its UID. Answers whether it was new. */
  async store(account: { id: string; tenantId: string }, folder: string, uidValidity: string, uid: number, raw: Buffer): Promise<boolean> {
    const key = deliveryKeyOf(raw);
    return this.db.transaction(async (manager) => {
      const [inserted] = (await manager.query(
        `INSERT INTO channel_events (tenant_id, account_id, delivery_key, raw_body, headers)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (account_id, delivery_key) DO NOTHING RETURNING id`,
        [account.tenantId, account.id, key, raw, JSON.stringify({ folder, uid: String(uid), uidvalidity: uidValidity })],
      )) as { id: string }[];
      if (inserted) {
        await insertOutbox(
          manager,
          [
            jobEffect(
              outboxJob(
                QUEUES.channelInbound,
                { name: 'process', data: { tenantId: account.tenantId, eventId: inserted.id } },
                { jobId: `channel-event.${inserted.id}` },
              ),
            ),
          ],
          { wakeRelay: true },
        );
      }
      // Only forward, and only under the UIDVALIDITY it was read in.
      await manager.query(
        `UPDATE email_mailbox_state SET last_uid = GREATEST(last_uid, $4), last_sync_at = now(), last_error = NULL, updated_at = now()
         WHERE account_id = $1 AND folder = $2 AND uid_validity = $3`,
        [account.id, folder, uidValidity, uid],
      );
      if (inserted) await manager.query(`UPDATE channel_accounts SET last_event_at = now() WHERE id = $1`, [account.id]);
      return Boolean(inserted);
    });
  }

  /** Moves past a mail that is not taken in (it arrived before the account was connected). */
  async skip(account: { id: string }, folder: string, uidValidity: string, uid: number): Promise<void> {
    await this.db.query(
      `UPDATE email_mailbox_state SET last_uid = GREATEST(last_uid, $4), updated_at = now()
       WHERE account_id = $1 AND folder = $2 AND uid_validity = $3`,
      [account.id, folder, uidValidity, uid],
    );
  }

  /** A sync that found nothing new still says the mailbox answered (the console's online indicator). */
  async synced(account: { id: string }, folder: string): Promise<void> {
    await this.db.query(
      `UPDATE email_mailbox_state SET last_sync_at = now(), last_error = NULL WHERE account_id = $1 AND folder = $2 AND last_error IS NOT NULL`,
      [account.id, folder],
    );
  }

  async failed(account: { id: string }, folder: string, reason: string): Promise<void> {
    await this.db
      .query(`UPDATE email_mailbox_state SET last_error = $3, updated_at = now() WHERE account_id = $1 AND folder = $2`, [
        account.id,
        folder,
        reason.slice(0, 2000),
      ])
      .catch(() => undefined);
  }
}

/**
 * A mail's key among its account's events: its Message-ID (the same mail read again after a
 * UIDVALIDITY change, or from another folder, is the same event), else the hash of its bytes.
 */
export function deliveryKeyOf(raw: Buffer): string {
  const id = messageIdOf(raw);
  const hash = (value: Buffer | string) => createHash('sha256').update(value).digest('hex');
  if (!id) return `sha256:${hash(raw)}`;
  const key = `id:${id}`;
  return key.length <= DELIVERY_KEY_MAX ? key : `id-sha256:${hash(id)}`;
}

/** The Message-ID of a raw message's header block (unfolded), with its angle brackets; null when it has none. */
export function messageIdOf(raw: Buffer): string | null {
  const end = raw.indexOf('\r\n\r\n');
  const endLf = raw.indexOf('\n\n');
  const headerEnd = [end, endLf].filter((at) => at >= 0).reduce((a, b) => Math.min(a, b), raw.length);
  const headers = raw
    .subarray(0, Math.min(headerEnd, 256 * 1024))
    .toString('latin1')
    .replace(/\r?\n[ \t]+/g, ' ');
  const match = /^message-id:\s*<?([^<>\s]{1,500})>?\s*$/im.exec(headers);
  return match ? `<${match[1]}>` : null;
}
