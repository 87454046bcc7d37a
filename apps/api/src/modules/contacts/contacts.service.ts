import type {
  ContactIdentity,
  ContactMergeEvent,
  ContactPersonView,
  ContactSummary,
  ContactTimelineCase,
  ContactTimelineConversation,
  Page,
} from '@centralita/contracts';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { escapeLike, pageOf } from '../admin/paginate';
import type { Principal } from '../auth/principal';

interface ContactRow {
  id: string;
  person_id: string | null;
  channel: string;
  channel_account_id: string;
  external_id: string;
  name: string;
  email: string | null;
  created_at: Date;
  identities?: number;
}

const toIdentity = (row: ContactRow): ContactIdentity => ({
  id: row.id,
  channel: row.channel,
  channelAccountId: row.channel_account_id,
  externalId: row.external_id,
  name: row.name,
  email: row.email,
  createdAt: new Date(row.created_at).toISOString(),
});

const iso = (value: Date | string | null): string | null => (value ? new Date(value).toISOString() : null);
const TIMELINE_LIMIT = 50;

/**
 * Contacts as people (issue 20 item 6). The intake creates one contact per channel identity and
 * never looks at persons; an agent merges identities that are the same person (contacts.person_id
 * → contact_persons) and can take one out again. Every merge and unmerge is kept in
 * contact_merges with who did it.
 */
@Injectable()
export class ContactsService {
  private readonly logger = new Logger(ContactsService.name);

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Contacts of the tenant by name, email or the provider's id (the "Merge with…" search). */
  async search(clientId: string, query: { q?: string; page?: number; pageSize?: number }): Promise<Page<ContactSummary>> {
    const { page, pageSize } = pageOf(query, { defaultPageSize: 20 });
    const params: unknown[] = [clientId];
    let filter = '';
    if (query.q) {
      params.push(`%${escapeLike(query.q)}%`);
      filter = `AND (k.name ILIKE $2 OR k.email ILIKE $2 OR k.external_id ILIKE $2)`;
    }
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query(
        `SELECT k.*, (SELECT count(*)::int FROM contacts o WHERE o.person_id = k.person_id) AS identities
           FROM contacts k WHERE k.tenant_id = $1 ${filter}
          ORDER BY k.updated_at DESC, k.id LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`,
        params,
      ) as Promise<ContactRow[]>,
      this.dataSource.query(`SELECT count(*)::int AS total FROM contacts k WHERE k.tenant_id = $1 ${filter}`, params) as Promise<
        { total: number }[]
      >,
    ]);
    return {
      items: rows.map((row) => ({ ...toIdentity(row), personId: row.person_id, identities: row.person_id ? (row.identities ?? 1) : 1 })),
      total,
      page,
      pageSize,
    };
  }

  /** The person of a conversation's contact; null when the conversation has none (rows from before the intake). */
  async byConversation(clientId: string, conversationId: string): Promise<ContactPersonView | null> {
    const [row] = (await this.dataSource.query(`SELECT contact_id FROM conversations WHERE id = $1 AND tenant_id = $2`, [
      conversationId,
      clientId,
    ])) as { contact_id: string | null }[];
    if (!row) throw AppException.notFound();
    return row.contact_id ? this.person(clientId, row.contact_id) : null;
  }

  /** A contact's person: its identities, the conversations of all of them (and their cases), the merge history. */
  async person(clientId: string, contactId: string): Promise<ContactPersonView> {
    const manager = this.dataSource;
    const [contact] = (await manager.query(`SELECT * FROM contacts WHERE id = $1 AND tenant_id = $2`, [
      contactId,
      clientId,
    ])) as ContactRow[];
    if (!contact) throw AppException.notFound();
    const identities = contact.person_id
      ? ((await manager.query(`SELECT * FROM contacts WHERE tenant_id = $1 AND person_id = $2 ORDER BY created_at, id`, [
          clientId,
          contact.person_id,
        ])) as ContactRow[])
      : [contact];
    const ids = identities.map((identity) => identity.id);
    const conversations = (await manager.query(
      `SELECT c.id, c.contact_id, c.channel, c.status, l.name AS line_name, c.created_at, c.closed_at
         FROM conversations c LEFT JOIN attention_lines l ON l.id = COALESCE(c.attention_line_id, c.entry_line_id)
        WHERE c.tenant_id = $1 AND c.contact_id = ANY($2::uuid[])
        ORDER BY c.created_at DESC, c.id LIMIT ${TIMELINE_LIMIT}`,
      [clientId, ids],
    )) as {
      id: string;
      contact_id: string;
      channel: string;
      status: string;
      line_name: string | null;
      created_at: Date;
      closed_at: Date | null;
    }[];
    const { cases, available } = await this.casesOf(
      manager,
      clientId,
      conversations.map((c) => c.id),
    );
    const history = (await manager.query(
      `SELECT m.id, m.action, m.contact_id, m.other_contact_id, u.name AS actor_name, m.at
         FROM contact_merges m LEFT JOIN users u ON u.id = m.actor_id
        WHERE m.tenant_id = $1 AND (m.contact_id = ANY($2::uuid[]) OR m.other_contact_id = ANY($2::uuid[]))
        ORDER BY m.at DESC, m.id LIMIT 20`,
      [clientId, ids],
    )) as {
      id: string;
      action: 'merge' | 'unmerge';
      contact_id: string;
      other_contact_id: string | null;
      actor_name: string | null;
      at: Date;
    }[];

    const timeline = [
      ...conversations.map((c): ContactTimelineConversation => ({
        kind: 'conversation',
        id: c.id,
        contactId: c.contact_id,
        channel: c.channel,
        status: c.status,
        lineName: c.line_name,
        createdAt: iso(c.created_at)!,
        closedAt: iso(c.closed_at),
      })),
      ...cases,
    ].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return {
      contactId: contact.id,
      personId: contact.person_id,
      identities: identities.map(toIdentity),
      timeline,
      casesAvailable: available,
      history: history.map((h): ContactMergeEvent => ({
        id: h.id,
        action: h.action,
        contactId: h.contact_id,
        otherContactId: h.other_contact_id,
        actorName: h.actor_name,
        at: iso(h.at)!,
      })),
    };
  }

  /**
   * One person from two contacts of the tenant (and everything already merged with either). Rows
   * are locked in id order, so two agents merging crossing pairs at once cannot deadlock.
   */
  async merge(principal: Principal, contactId: string, otherId: string): Promise<ContactPersonView> {
    if (contactId === otherId)
      throw new AppException('validation', {
        message: 'A contact cannot be merged with itself',
        data: { fields: { contactId: ['must be another contact'] } },
      });
    await this.dataSource.transaction(async (manager) => {
      const rows = (await manager.query(
        `SELECT id, person_id FROM contacts WHERE tenant_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR NO KEY UPDATE`,
        [principal.clientId, [contactId, otherId]],
      )) as { id: string; person_id: string | null }[];
      if (rows.length < 2) throw AppException.notFound();
      const a = rows.find((row) => row.id === contactId)!;
      const b = rows.find((row) => row.id === otherId)!;
      if (a.person_id && a.person_id === b.person_id)
        throw new AppException('conflict', { message: 'These contacts are already the same person' });
      const persons = [a.person_id, b.person_id].filter((p): p is string => Boolean(p)).sort();
      if (persons.length)
        await manager.query(`SELECT id FROM contact_persons WHERE tenant_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE`, [
          principal.clientId,
          persons,
        ]);
      let person = a.person_id ?? b.person_id;
      if (!person) {
        const [created] = (await manager.query(`INSERT INTO contact_persons (tenant_id, created_by) VALUES ($1, $2) RETURNING id`, [
          principal.clientId,
          principal.userId,
        ])) as { id: string }[];
        person = created.id;
      }
      if (b.person_id && b.person_id !== person) {
        // Both were merged already: the other person's identities all join this one.
        await manager.query(`UPDATE contacts SET person_id = $1 WHERE tenant_id = $2 AND person_id = $3`, [
          person,
          principal.clientId,
          b.person_id,
        ]);
        await manager.query(`DELETE FROM contact_persons WHERE id = $1 AND tenant_id = $2`, [b.person_id, principal.clientId]);
      }
      await manager.query(`UPDATE contacts SET person_id = $1 WHERE tenant_id = $2 AND id = ANY($3::uuid[]) AND person_id IS NULL`, [
        person,
        principal.clientId,
        [a.id, b.id],
      ]);
      await manager.query(
        `INSERT INTO contact_merges (tenant_id, action, person_id, contact_id, other_contact_id, actor_id) VALUES ($1, 'merge', $2, $3, $4, $5)`,
        [principal.clientId, person, a.id, b.id, principal.userId],
      );
    });
    // Read after the commit: the timeline's optional cases query must not run inside the transaction.
    return this.person(principal.clientId, contactId);
  }

  /** Takes one identity out of its person; a person left with a single identity is dissolved. */
  async unmerge(principal: Principal, contactId: string): Promise<ContactPersonView> {
    await this.dataSource.transaction(async (manager) => {
      const [row] = (await manager.query(`SELECT id, person_id FROM contacts WHERE tenant_id = $1 AND id = $2 FOR NO KEY UPDATE`, [
        principal.clientId,
        contactId,
      ])) as { id: string; person_id: string | null }[];
      if (!row) throw AppException.notFound();
      if (!row.person_id) throw new AppException('conflict', { message: 'This contact is not merged with any other' });
      await manager.query(`SELECT id FROM contact_persons WHERE id = $1 FOR UPDATE`, [row.person_id]);
      await manager.query(`UPDATE contacts SET person_id = NULL WHERE id = $1`, [row.id]);
      const rest = (await manager.query(`SELECT id FROM contacts WHERE tenant_id = $1 AND person_id = $2`, [
        principal.clientId,
        row.person_id,
      ])) as { id: string }[];
      if (rest.length < 2) {
        await manager.query(`UPDATE contacts SET person_id = NULL WHERE tenant_id = $1 AND person_id = $2`, [
          principal.clientId,
          row.person_id,
        ]);
        await manager.query(`DELETE FROM contact_persons WHERE id = $1`, [row.person_id]);
      }
      await manager.query(
        `INSERT INTO contact_merges (tenant_id, action, person_id, contact_id, other_contact_id, actor_id) VALUES ($1, 'unmerge', $2, $3, $4, $5)`,
        [principal.clientId, row.person_id, row.id, rest.length === 1 ? rest[0].id : null, principal.userId],
      );
    });
    return this.person(principal.clientId, contactId);
  }

  /**
   * Cases linked to these conversations. The cases module (case_conversations) may not be installed
   * in this database: checked with to_regclass, so the timeline works either way.
   */
  private async casesOf(
    manager: DataSource,
    clientId: string,
    conversationIds: string[],
  ): Promise<{ cases: ContactTimelineCase[]; available: boolean }> {
    const [{ present }] = (await manager.query(`SELECT to_regclass('case_conversations') IS NOT NULL AS present`)) as {
      present: boolean;
    }[];
    if (!present) return { cases: [], available: false };
    if (!conversationIds.length) return { cases: [], available: true };
    try {
      const rows = (await manager.query(
        `SELECT k.id, k.number, k.subject, k.status, k.created_at, cc.conversation_id
           FROM case_conversations cc JOIN cases k ON k.id = cc.case_id AND k.tenant_id = cc.tenant_id
          WHERE cc.tenant_id = $1 AND cc.conversation_id = ANY($2::uuid[])`,
        [clientId, conversationIds],
      )) as {
        id: string;
        number: number | null;
        subject: string | null;
        status: string | null;
        created_at: Date;
        conversation_id: string;
      }[];
      const seen = new Set<string>();
      return {
        available: true,
        cases: rows
          .filter((row) => !seen.has(row.id) && Boolean(seen.add(row.id)))
          .map((row) => ({
            kind: 'case',
            id: row.id,
            code: row.number === null ? null : `C-${String(row.number).padStart(6, '0')}`,
            subject: row.subject,
            status: row.status,
            conversationId: row.conversation_id,
            createdAt: iso(row.created_at)!,
          })),
      };
    } catch (error) {
      // A cases schema other than the one this query knows: the timeline still shows conversations.
      this.logger.warn(`cases could not be read for the contact timeline: ${(error as Error).message}`);
      return { cases: [], available: false };
    }
  }
}
