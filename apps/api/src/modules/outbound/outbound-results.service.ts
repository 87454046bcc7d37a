import {
  csvCell,
  DEFAULT_LANGUAGE,
  DOWNLOAD_LABELS,
  type Language,
  type OutboundCallView,
  type Page,
  type PagedQuery,
  type ValueLabelKind,
  valueLabel,
} from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Principal } from '../auth/principal';
import { CampaignAdminService } from './campaign-admin.service';
import { callView, type CallRow } from './outbound-rows';

/** A campaign's results: its calls, paged for the console and as CSV. */
@Injectable()
export class OutboundResultsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly campaigns: CampaignAdminService,
  ) {}

  async results(principal: Principal, campaignId: string, query: PagedQuery): Promise<Page<OutboundCallView>> {
    await this.campaigns.get(principal, campaignId);
    const page = query.page ?? 1;
    const pageSize = query.pageSize ?? 25;
    const [{ total }] = (await this.dataSource.query(`SELECT count(*)::int AS total FROM outbound_calls WHERE campaign_id = $1`, [
      campaignId,
    ])) as {
      total: number;
    }[];
    const rows = (await this.dataSource.query(
      `SELECT oc.*, ct.name AS contact_name FROM outbound_calls oc JOIN outbound_contacts ct ON ct.id = oc.contact_id
        WHERE oc.campaign_id = $1 ORDER BY oc.created_at DESC, oc.id LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`,
      [campaignId],
    )) as (CallRow & { contact_name: string | null })[];
    return { items: rows.map((row) => callView(row, row.contact_name)), total, page, pageSize } as Page<OutboundCallView>;
  }

  /**
   * The campaign's calls as CSV in `language`, the requester's: headers, states, outcomes and
   * dispositions in words (a tenant's own disposition code stays as it is); times stay ISO-8601.
   */
  async resultsCsv(principal: Principal, campaignId: string, language: Language = DEFAULT_LANGUAGE): Promise<string> {
    await this.campaigns.get(principal, campaignId);
    const rows = (await this.dataSource.query(
      `SELECT oc.*, ct.name AS contact_name, u.name AS agent_name FROM outbound_calls oc JOIN outbound_contacts ct ON ct.id = oc.contact_id
         LEFT JOIN users u ON u.id = oc.agent_id WHERE oc.campaign_id = $1 ORDER BY oc.created_at, oc.id LIMIT 100000`,
      [campaignId],
    )) as (CallRow & { contact_name: string | null; agent_name: string | null })[];
    const labels = DOWNLOAD_LABELS[language].outboundResults;
    const header = [
      labels.phone,
      labels.name,
      labels.attempt,
      labels.status,
      labels.outcome,
      labels.disposition,
      labels.agent,
      labels.createdAt,
      labels.answeredAt,
      labels.finishedAt,
    ];
    const label = (kind: ValueLabelKind, code: string | null) => (code ? valueLabel(kind, code, language) : code);
    const iso = (value: Date | null) => (value ? new Date(value).toISOString() : '');
    const lines = rows.map((row) =>
      [
        row.phone,
        row.contact_name,
        row.attempt,
        label('callStatus', row.status),
        label('callOutcome', row.outcome),
        label('callDisposition', row.disposition),
        row.agent_name,
        iso(row.created_at),
        iso(row.answered_at),
        iso(row.finished_at),
      ]
        .map(csvCell)
        .join(','),
    );
    return [header.map(csvCell).join(','), ...lines].join('\r\n') + '\r\n';
  }
}
