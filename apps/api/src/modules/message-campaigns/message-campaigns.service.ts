import { randomBytes } from 'node:crypto';
import { ChannelError, type TemplateSend } from '@centralita/channels';
import { QUEUES, outboxJob } from '@centralita/contracts';
import { readMessageCampaignCounts } from '@centralita/contracts/server';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import type { Principal } from '../auth/principal';
import { ChannelAdaptersService } from '../channels/channel-adapters.service';
import type { ChannelAccountRow } from '../channels/channel-account.row';
import { MachineHostService } from '../machine-host/machine-host.service';
import { jobEffect, writeOutbox } from '../machine-host/outbox';
import { applyTemplateStatus } from './campaign-inbound';
import { campaignBoardChanged } from './campaign-board-signal';
import { saveSchedule, scheduleColumns, scheduleInstead, scheduleView } from './campaign-schedule';
import {
  emailParameterCount,
  insertEmailCampaign,
  insertEmailRecipients,
  insertEmailTemplate,
  isEmailTemplate,
  previewEmailTemplate,
} from './email-campaigns';
import {
  headerMediaProblem,
  mappingProblem,
  metaComponents,
  parameterFormatOf,
  renderTemplate,
  templateParameterNames,
  templateSampleProblem,
  TEMPLATE_MEDIA_LIMITS,
  type HeaderMediaInput,
  type TemplateMediaFormat,
  templateProblem,
  type ChannelTemplateInput,
  type EmailTemplateInput,
  type RenderedEmail,
  type ChannelTemplateView,
  type MessageCampaignInput,
  type MessageCampaignView,
  type RecipientStatus,
} from '@centralita/contracts';

interface TemplateRow {
  id: string;
  account_id: string;
  name: string;
  language: string;
  category: string;
  components: Record<string, unknown>[];
  status: string;
  reason: string | null;
  provider_template_id: string | null;
  submitted_at: Date | null;
  updated_at: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const STATUSES: RecipientStatus[] = ['queued', 'sending', 'sent', 'delivered', 'read', 'failed', 'skipped'];

const invalid = (message: string) => new AppException('validation', { message });

function templateView(row: TemplateRow): ChannelTemplateView {
  const parameters = templateParameterNames(row.components);
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    language: row.language,
    category: row.category,
    components: row.components,
    status: row.status,
    reason: row.reason,
    providerTemplateId: row.provider_template_id,
    headerParameterCount: parameters.header.length,
    bodyParameterCount: isEmailTemplate(row) ? emailParameterCount(row.components) : parameters.body.length,
    parameterFormat: parameters.format,
    headerFormat: parameters.headerFormat,
    headerParameters: parameters.header,
    bodyParameters: parameters.body,
    submittedAt: row.submitted_at?.toISOString() ?? null,
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * Message templates of the tenant's channel accounts and the message campaigns that send them
 * (issue 21). Every query is scoped by the caller's tenant; another tenant's id answers 404.
 * Starting a campaign writes its recipients and, in the same transaction, the worker's job
 * (outbox): the sends themselves run in the worker (apps/worker/src/message-campaigns).
 */
@Injectable()
export class MessageCampaignsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly adapters: ChannelAdaptersService,
    private readonly host: MachineHostService,
  ) {}

  // Templates

  /** Accounts whose channel has provider templates (WhatsApp), enabled and connected. */
  async templateAccounts(principal: Principal): Promise<{ id: string; name: string; kind: string }[]> {
    const rows = (await this.dataSource.query(
      `SELECT id, name, kind FROM channel_accounts WHERE tenant_id = $1 AND deleted_at IS NULL AND enabled ORDER BY name`,
      [principal.clientId],
    )) as { id: string; name: string; kind: string }[];
    // Email accounts too: their templates need no provider (issue 21, email campaigns).
    return rows.filter((row) => row.kind === 'email' || Boolean(this.adapters.usable(row.kind)?.createTemplate));
  }

  /** The internal numbers (setting testNumbers) a template of the account may be test sent to: the console's picker. */
  async testNumbers(principal: Principal, accountId: string | undefined): Promise<string[]> {
    const account = await this.accountRow(principal, accountId);
    return internalNumbers(account.settings?.testNumbers);
  }

  /**
   * A media header's sample for Meta's review: checked against WhatsApp's type and size limits and
   * uploaded with the account's app (Resumable Upload API); answers the handle the template gives.
   */
  async uploadTemplateSample(
    principal: Principal,
    input: { accountId?: string; format?: string; fileName?: string; mimeType: string; bytes: Buffer },
  ): Promise<{ handle: string; fileName: string; mimeType: string; size: number }> {
    const problem = templateSampleProblem(String(input.format ?? ''), input.mimeType, input.bytes.length);
    if (problem) throw invalid(problem);
    const fileName = (input.fileName ?? '').trim() || 'sample';
    if (fileName.length > 200 || /[\\/\u0000-\u001f]/.test(fileName))
      throw invalid('fileName must be a plain file name of at most 200 characters');
    const account = await this.accountRow(principal, input.accountId);
    const adapter = this.adapters.usable(account.kind);
    if (!adapter?.uploadTemplateSample) throw invalid(`${account.kind} accounts have no template samples`);
    const mimeType = input.mimeType.split(';')[0].trim().toLowerCase();
    try {
      const handle = await adapter.uploadTemplateSample(this.adapters.toAdapterAccount(account), {
        bytes: input.bytes,
        mimeType,
        fileName,
      });
      return { handle, fileName, mimeType, size: input.bytes.length };
    } catch (error) {
      if (error instanceof ChannelError && error.details.code === 'missing_settings') throw invalid(error.message);
      throw providerRefusal(error);
    }
  }

  /**
   * A campaign's media header uploaded once to WhatsApp (POST /{phone-number-id}/media) after the
   * type and size checks of its header format; answers the media id the campaign sends by
   * (`headerMedia.id`). Meta keeps an uploaded medium 30 days.
   */
  async uploadHeaderMedia(
    principal: Principal,
    input: { accountId?: string; format?: string; fileName?: string; mimeType: string; bytes: Buffer },
  ): Promise<{ id: string; fileName: string; mimeType: string; size: number }> {
    const format = String(input.format ?? '') as TemplateMediaFormat;
    const limits = TEMPLATE_MEDIA_LIMITS[format];
    if (!limits) throw invalid('format must be IMAGE, VIDEO or DOCUMENT');
    const mimeType = input.mimeType.split(';')[0].trim().toLowerCase();
    if (!limits.mimeTypes.includes(mimeType)) throw invalid(`a ${format.toLowerCase()} header must be ${limits.mimeTypes.join(' or ')}`);
    if (!input.bytes.length) throw invalid('the file is empty');
    if (input.bytes.length > limits.maxBytes)
      throw invalid(`a ${format.toLowerCase()} header is at most ${limits.maxBytes / 1024 / 1024} MB`);
    const fileName = (input.fileName ?? '').trim() || 'header';
    if (fileName.length > 200 || /[\\/\u0000-\u001f]/.test(fileName))
      throw invalid('fileName must be a plain file name of at most 200 characters');
    const account = await this.accountRow(principal, input.accountId);
    const adapter = this.adapters.usable(account.kind);
    if (!adapter?.uploadMedia) throw invalid(`${account.kind} accounts take no uploaded header media`);
    try {
      const id = await adapter.uploadMedia(this.adapters.toAdapterAccount(account), {
        kind: format.toLowerCase() as 'image' | 'video' | 'document',
        mimeType,
        fileName,
        bytes: input.bytes,
      });
      return { id, fileName, mimeType, size: input.bytes.length };
    } catch (error) {
      throw providerRefusal(error);
    }
  }

  async listTemplates(principal: Principal, accountId?: string): Promise<ChannelTemplateView[]> {
    if (accountId !== undefined && !UUID.test(accountId)) throw invalid('accountId must be a UUID');
    const rows = (await this.dataSource.query(
      `SELECT * FROM channel_templates WHERE tenant_id = $1 AND ($2::uuid IS NULL OR account_id = $2) ORDER BY name, language`,
      [principal.clientId, accountId ?? null],
    )) as TemplateRow[];
    return rows.map(templateView);
  }

  async getTemplate(principal: Principal, id: string): Promise<ChannelTemplateView> {
    return templateView(await this.templateRow(principal, id));
  }

  /** Stores a draft (status DRAFT); submit sends it to the provider. */
  async createTemplate(principal: Principal, input: Partial<ChannelTemplateInput>): Promise<ChannelTemplateView> {
    if (typeof input.accountId === 'string' && UUID.test(input.accountId)) {
      const owner = await this.accountRow(principal, input.accountId);
      if (owner.kind === 'email') {
        return templateView(
          (await insertEmailTemplate(
            this.dataSource,
            principal.clientId,
            owner,
            input as Partial<EmailTemplateInput>,
          )) as unknown as TemplateRow,
        );
      }
    }
    const problem = templateProblem(input);
    if (problem) throw invalid(problem);
    const account = await this.accountRow(principal, input.accountId);
    if (!this.adapters.usable(account.kind)?.createTemplate) throw invalid(`${account.kind} accounts have no provider templates`);
    const valid = input as ChannelTemplateInput;
    try {
      const [row] = (await this.dataSource.query(
        `INSERT INTO channel_templates (tenant_id, account_id, name, language, category, components)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING *`,
        [principal.clientId, account.id, valid.name, valid.language, valid.category, JSON.stringify(metaComponents(valid))],
      )) as TemplateRow[];
      return templateView(row!);
    } catch (error) {
      if ((error as { code?: string }).code === '23505') {
        throw new AppException('conflict', { message: `The account already has a template ${valid.name} in ${valid.language}` });
      }
      throw error;
    }
  }

  /** Sends a draft (or a rejected template, corrected) to the account's WhatsApp Business account. */
  async submitTemplate(principal: Principal, id: string): Promise<ChannelTemplateView> {
    const row = await this.templateRow(principal, id);
    if (isEmailTemplate(row)) throw new AppException('conflict', { message: 'An email template needs no review: it is usable once saved' });
    if (row.provider_template_id && row.status !== 'REJECTED') {
      throw new AppException('conflict', { message: `The template was already submitted (${row.status})` });
    }
    const account = await this.accountRow(principal, row.account_id);
    const adapter = this.adapters.usable(account.kind);
    if (!adapter?.createTemplate) throw invalid(`${account.kind} accounts have no provider templates`);
    let answer;
    try {
      answer = await adapter.createTemplate(this.adapters.toAdapterAccount(account), {
        name: row.name,
        language: row.language,
        category: row.category as ChannelTemplateInput['category'],
        parameterFormat: parameterFormatOf(row.components),
        components: row.components,
      });
    } catch (error) {
      throw providerRefusal(error);
    }
    const [updated] = (await this.dataSource.query(
      `WITH moved AS (UPDATE channel_templates SET provider_template_id = $3, status = $4, category = $5, reason = NULL, submitted_at = now(), updated_at = now()
       WHERE id = $1 AND tenant_id = $2 RETURNING *) SELECT * FROM moved`,
      [row.id, principal.clientId, answer.providerTemplateId, answer.status, answer.category],
    )) as TemplateRow[];
    return templateView(updated!);
  }

  /** "Sync now": every template of the account reads its status from the provider. */
  async syncTemplates(principal: Principal, accountId: string | undefined): Promise<ChannelTemplateView[]> {
    const account = await this.accountRow(principal, accountId);
    const adapter = this.adapters.usable(account.kind);
    if (!adapter?.templateStatuses) throw invalid(`${account.kind} accounts have no provider templates`);
    let statuses;
    try {
      statuses = await adapter.templateStatuses(this.adapters.toAdapterAccount(account));
    } catch (error) {
      throw providerRefusal(error);
    }
    for (const status of statuses) {
      await applyTemplateStatus(this.dataSource, account, {
        providerTemplateId: status.providerTemplateId,
        name: status.name,
        language: status.language,
        status: status.status,
        reason: status.reason,
      });
    }
    return this.listTemplates(principal, account.id);
  }

  /** The live preview: header, body and footer with sample values (examples when none are given). */
  async previewTemplate(
    principal: Principal,
    id: string,
    values: { header?: string[]; body?: string[] },
  ): Promise<{ header: string | null; body: string; footer: string | null; buttons: string[] } | RenderedEmail> {
    const row = await this.templateRow(principal, id);
    if (isEmailTemplate(row)) return previewEmailTemplate(row.components, values.body);
    return renderTemplate(row.components, values);
  }

  // Campaigns

  async listCampaigns(principal: Principal): Promise<MessageCampaignView[]> {
    const ids = (await this.dataSource.query(`SELECT id FROM message_campaigns WHERE tenant_id = $1 ORDER BY created_at DESC LIMIT 200`, [
      principal.clientId,
    ])) as { id: string }[];
    return Promise.all(ids.map((row) => this.getCampaign(principal, row.id)));
  }

  async getCampaign(principal: Principal, id: string): Promise<MessageCampaignView> {
    const [row] = (await this.dataSource.query(
      `SELECT c.*, t.name AS template_name FROM message_campaigns c JOIN channel_templates t ON t.id = c.template_id
       WHERE c.id = $1 AND c.tenant_id = $2`,
      [id, principal.clientId],
    )) as Record<string, unknown>[];
    if (!row) throw AppException.notFound();
    const { counts, skipped } = await readMessageCampaignCounts(this.dataSource, id);
    return {
      id: row.id as string,
      name: row.name as string,
      channel: row.channel as string,
      accountId: row.account_id as string,
      templateId: row.template_id as string,
      templateName: row.template_name as string,
      phoneListId: row.phone_list_id as string,
      addressColumn: (row.address_column as string | null) ?? null,
      parameterMapping: {
        header: (row.parameter_mapping as MessageCampaignView['parameterMapping']).header ?? [],
        body: (row.parameter_mapping as MessageCampaignView['parameterMapping']).body ?? [],
      },
      // A media header's image, video or document travels inside the mapping's JSON (no migration).
      headerMedia: (row.parameter_mapping as { headerMedia?: HeaderMediaInput }).headerMedia ?? null,
      ratePerSecond: row.rate_per_second as number,
      status: row.status as MessageCampaignView['status'],
      pausedReason: row.paused_reason as string | null,
      pausedDetail: row.paused_detail as string | null,
      ...scheduleView(row),
      startedAt: (row.started_at as Date | null)?.toISOString() ?? null,
      finishedAt: (row.finished_at as Date | null)?.toISOString() ?? null,
      counts,
      skipped,
    };
  }

  async createCampaign(principal: Principal, input: MessageCampaignInput): Promise<MessageCampaignView> {
    if (typeof input.name !== 'string' || !input.name.trim() || input.name.length > 160) throw invalid('name must be 1 to 160 characters');
    const rate = input.ratePerSecond ?? 20;
    if (!Number.isInteger(rate) || rate < 1 || rate > 1000) throw invalid('ratePerSecond must be a whole number from 1 to 1000');
    const account = await this.accountRow(principal, input.accountId);
    if (typeof input.templateId !== 'string' || !UUID.test(input.templateId)) throw invalid('templateId must be a UUID');
    const template = await this.templateRow(principal, input.templateId);
    if (template.account_id !== account.id) throw invalid("The template does not belong to the campaign's account");
    if (typeof input.phoneListId !== 'string' || !UUID.test(input.phoneListId)) throw invalid('phoneListId must be a UUID');
    const [list] = (await this.dataSource.query(`SELECT id FROM phone_lists WHERE id = $1 AND client_id = $2 AND deleted_at IS NULL`, [
      input.phoneListId,
      principal.clientId,
    ])) as unknown[];
    if (!list) throw AppException.notFound();
    if (account.kind === 'email' || isEmailTemplate(template)) {
      // Email campaigns (email-campaigns.ts): the address column and the mapping checked there; the schedule as any campaign's.
      const emailSchedule = scheduleColumns(input);
      const emailCampaignId = await insertEmailCampaign(this.dataSource, principal.clientId, input, account, template);
      await saveSchedule(this.dataSource, emailCampaignId, emailSchedule);
      return this.getCampaign(principal, emailCampaignId);
    }
    const view = templateView(template);
    const problem = mappingProblem(input.parameterMapping, { header: view.headerParameterCount, body: view.bodyParameterCount });
    if (problem) throw invalid(problem);
    const mediaProblem = headerMediaProblem(view.headerFormat, input.headerMedia ?? null);
    if (mediaProblem) throw invalid(mediaProblem);
    const headerMedia = input.headerMedia ? cleanMedia(input.headerMedia) : undefined;
    const schedule = scheduleColumns(input);
    const [row] = (await this.dataSource.query(
      `INSERT INTO message_campaigns (tenant_id, name, channel, account_id, template_id, phone_list_id, parameter_mapping, rate_per_second)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8) RETURNING id`,
      [
        principal.clientId,
        input.name.trim(),
        account.kind,
        account.id,
        template.id,
        input.phoneListId,
        JSON.stringify({
          header: input.parameterMapping?.header ?? [],
          body: input.parameterMapping?.body ?? [],
          ...(headerMedia ? { headerMedia } : {}),
        }),
        rate,
      ],
    )) as { id: string }[];
    await saveSchedule(this.dataSource, row!.id, schedule);
    return this.getCampaign(principal, row!.id);
  }

  /**
   * Starts (or resumes) a campaign: the first start writes one recipient per phone of the list,
   * skipping invalid numbers, the tenant's do-not-call list (blacklisted) and contacts who opted
   * out on the account, with the reason; then the worker's job goes out through the outbox.
   */
  async startCampaign(principal: Principal, id: string): Promise<MessageCampaignView> {
    await this.host.transaction(async (manager, outbox) => {
      const [campaign] = (await manager.query(
        `SELECT c.*, t.status AS template_status FROM message_campaigns c JOIN channel_templates t ON t.id = c.template_id
         WHERE c.id = $1 AND c.tenant_id = $2 FOR NO KEY UPDATE OF c`,
        [id, principal.clientId],
      )) as { id: string; status: string; template_status: string; account_id: string; phone_list_id: string; run_generation: number }[];
      if (!campaign) throw AppException.notFound();
      if (campaign.status === 'running') return;
      if (campaign.status === 'stopped' || campaign.status === 'finished') {
        throw new AppException('conflict', { message: `The campaign is ${campaign.status}: it cannot start again` });
      }
      if (campaign.template_status !== 'APPROVED') {
        throw new AppException('conflict', {
          message: `The template is ${campaign.template_status}: only an approved template can be sent`,
        });
      }
      // A start time still ahead: the campaign waits for it (MessageCampaignTimerSweeper starts it then).
      if (await scheduleInstead(manager, campaign)) return;
      // Fired by its start time (or started early by hand): its recipients are written now, as a draft's.
      if (campaign.status === 'scheduled') campaign.status = 'draft';
      if (campaign.status === 'draft' && (campaign as { channel?: string }).channel === 'email') {
        await insertEmailRecipients(manager, campaign as typeof campaign & { tenant_id: string; address_column: string });
      } else if (campaign.status === 'draft') {
        await manager.query(
          `INSERT INTO message_campaign_recipients (tenant_id, campaign_id, account_id, seq, phone, name, status, skip_reason)
           SELECT $1::uuid, $2::uuid, $3::uuid, e.line, e.phone, e.name, CASE WHEN reason IS NULL THEN 'queued' ELSE 'skipped' END, reason
           FROM (
             SELECT e.*, CASE
               WHEN e.phone !~ '^\\+?[1-9][0-9]{7,14}$' THEN 'invalid_phone'
               WHEN EXISTS (SELECT 1 FROM do_not_call d WHERE d.tenant_id = $1 AND d.campaign_id IS NULL
                              AND regexp_replace(d.phone, '\\D', '', 'g') = regexp_replace(e.phone, '\\D', '', 'g')) THEN 'blacklisted'
               WHEN EXISTS (SELECT 1 FROM contacts k WHERE k.tenant_id = $1 AND k.channel_account_id = $3::text
                              AND k.external_id = regexp_replace(e.phone, '\\D', '', 'g') AND k.opted_out_at IS NOT NULL) THEN 'opted_out'
               END AS reason
             FROM phone_list_entries e WHERE e.list_id = $4 AND e.client_id = $1
           ) e
           ON CONFLICT (campaign_id, phone) DO NOTHING`,
          [principal.clientId, campaign.id, campaign.account_id, campaign.phone_list_id],
        );
      }
      const generation = campaign.run_generation + 1;
      await manager.query(
        `UPDATE message_campaigns SET status = 'running', paused_reason = NULL, paused_detail = NULL, run_generation = $2,
           idle_reason = NULL, idle_until = NULL, resume_at = NULL,
           started_at = COALESCE(started_at, now()), updated_at = now() WHERE id = $1`,
        [campaign.id, generation],
      );
      outbox.push(
        ...(await writeOutbox(manager, [
          jobEffect(
            outboxJob(
              QUEUES.messageCampaigns,
              { name: 'run', data: { tenantId: principal.clientId, campaignId: campaign.id } },
              { jobId: `message-campaign.${campaign.id}.${generation}` },
            ),
          ),
        ])),
      );
    });
    campaignBoardChanged(id);
    return this.getCampaign(principal, id);
  }

  async pauseCampaign(principal: Principal, id: string): Promise<MessageCampaignView> {
    return this.move(principal, id, 'paused', ['running'], 'manual');
  }

  /** Stops at once: the worker claims nothing more (its claim requires `running`); recipients left queued stay unsent. */
  async stopCampaign(principal: Principal, id: string): Promise<MessageCampaignView> {
    return this.move(principal, id, 'stopped', ['draft', 'scheduled', 'running', 'paused'], null);
  }

  private async move(principal: Principal, id: string, to: string, from: string[], reason: string | null): Promise<MessageCampaignView> {
    const rows = (await this.dataSource.query(
      `WITH moved AS (UPDATE message_campaigns SET status = $3::text, paused_reason = $5, paused_detail = NULL,
         idle_reason = NULL, idle_until = NULL, resume_at = NULL,
         finished_at = CASE WHEN $3::text = 'stopped' THEN now() ELSE finished_at END, updated_at = now()
       WHERE id = $1 AND tenant_id = $2 AND status = ANY($4::text[]) RETURNING id) SELECT id FROM moved`,
      [id, principal.clientId, to, from, reason],
    )) as unknown[];
    if (!rows.length) {
      const view = await this.getCampaign(principal, id);
      throw new AppException('conflict', { message: `The campaign is ${view.status}` });
    }
    campaignBoardChanged(id);
    return this.getCampaign(principal, id);
  }

  /** One page of recipients, optionally of one status. */
  async recipients(
    principal: Principal,
    id: string,
    query: { status?: string; page?: string; pageSize?: string },
  ): Promise<{ items: Record<string, unknown>[]; total: number }> {
    await this.getCampaign(principal, id);
    if (query.status !== undefined && !STATUSES.includes(query.status as RecipientStatus)) {
      throw invalid(`status must be one of ${STATUSES.join(', ')}`);
    }
    const page = Math.max(1, Number(query.page ?? 1) || 1);
    const pageSize = Math.min(500, Math.max(1, Number(query.pageSize ?? 50) || 50));
    const rows = (await this.dataSource.query(
      `SELECT id, phone, address, name, status, skip_reason AS "skipReason", provider_message_id AS "providerMessageId", error_code AS "errorCode",
         error_text AS "errorText", sent_at AS "sentAt", delivered_at AS "deliveredAt", read_at AS "readAt", replied_at AS "repliedAt",
         conversation_id AS "conversationId", count(*) OVER ()::int AS total
       FROM message_campaign_recipients WHERE campaign_id = $1 AND ($2::text IS NULL OR status = $2)
       ORDER BY seq LIMIT $3 OFFSET $4`,
      [id, query.status ?? null, pageSize, (page - 1) * pageSize],
    )) as (Record<string, unknown> & { total: number })[];
    return { items: rows.map(({ total: _total, ...item }) => item), total: rows[0]?.total ?? 0 };
  }

  /** The results export (CSV, cells that could start a formula neutralised). */
  async exportCsv(principal: Principal, id: string): Promise<string> {
    const view = await this.getCampaign(principal, id);
    const rows = (await this.dataSource.query(
      `SELECT phone, address, name, status, skip_reason, provider_message_id, error_code, error_text, sent_at, delivered_at, read_at, replied_at
       FROM message_campaign_recipients WHERE campaign_id = $1 ORDER BY seq`,
      [view.id],
    )) as Record<string, unknown>[];
    const header = [
      'phone',
      'address',
      'name',
      'status',
      'skip_reason',
      'provider_message_id',
      'error_code',
      'error_text',
      'sent_at',
      'delivered_at',
      'read_at',
      'replied_at',
    ];
    const cell = (value: unknown): string => {
      let text = value instanceof Date ? value.toISOString() : value === null || value === undefined ? '' : String(value);
      if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
      return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
    };
    return [header.join(','), ...rows.map((row) => header.map((name) => cell(row[name])).join(','))].join('\r\n') + '\r\n';
  }

  /**
   * Test send: an approved template to one of the account's internal numbers (setting
   * `testNumbers`, comma-separated), answered with the rendered message and the provider's answer.
   * Sent from the API (not the worker) because the person testing waits for Meta's answer; it
   * writes nothing.
   */
  async testSend(
    principal: Principal,
    id: string,
    input: { to?: string; header?: string[]; body?: string[]; headerMedia?: HeaderMediaInput | null },
  ): Promise<{
    rendered: ReturnType<typeof renderTemplate>;
    providerMessageId: string | null;
    error: { code: string; message: string } | null;
  }> {
    const row = await this.templateRow(principal, id);
    if (row.status !== 'APPROVED')
      throw new AppException('conflict', { message: `The template is ${row.status}: only approved templates can be test sent` });
    const to = typeof input.to === 'string' ? input.to.trim() : '';
    const account = await this.accountRow(principal, row.account_id);
    const internal = internalNumbers(account.settings?.testNumbers);
    if (!to || !internal.includes(to.replace(/\D/g, '')))
      throw invalid("to must be one of the account's internal test numbers (setting testNumbers)");
    const view = templateView(row);
    const header = input.header ?? [];
    const body = input.body ?? [];
    if (
      header.length !== view.headerParameterCount ||
      body.length !== view.bodyParameterCount ||
      [...header, ...body].some((value) => typeof value !== 'string' || !value.trim())
    ) {
      throw invalid(`Give ${view.headerParameterCount} header and ${view.bodyParameterCount} body values`);
    }
    const mediaProblem = headerMediaProblem(view.headerFormat, input.headerMedia ?? null);
    if (mediaProblem) throw invalid(mediaProblem);
    const rendered = renderTemplate(row.components, { header, body });
    const adapter = this.adapters.usable(account.kind);
    if (!adapter) throw invalid(`${account.kind} is not available`);
    try {
      const sent = await adapter.send(
        this.adapters.toAdapterAccount(account),
        { to, template: templateSend(row, view, { header, body }, input.headerMedia ?? null) },
        { idempotencyKey: `template-test.${randomBytes(8).toString('hex')}` },
      );
      return { rendered, providerMessageId: sent.providerMessageId, error: null };
    } catch (error) {
      if (!(error instanceof ChannelError)) throw error;
      return { rendered, providerMessageId: null, error: { code: error.details.code, message: error.message } };
    }
  }

  private async templateRow(principal: Principal, id: string): Promise<TemplateRow> {
    const [row] = (await this.dataSource.query(`SELECT * FROM channel_templates WHERE id = $1 AND tenant_id = $2`, [
      id,
      principal.clientId,
    ])) as TemplateRow[];
    if (!row) throw AppException.notFound();
    return row;
  }

  private async accountRow(principal: Principal, accountId: string | undefined): Promise<ChannelAccountRow> {
    if (typeof accountId !== 'string' || !UUID.test(accountId)) throw invalid('accountId must be a UUID');
    const [row] = (await this.dataSource.query(`SELECT * FROM channel_accounts WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL`, [
      accountId,
      principal.clientId,
    ])) as ChannelAccountRow[];
    if (!row) throw AppException.notFound();
    return row;
  }
}

/** The internal test numbers of an account's setting `testNumbers` (comma-separated), digits only. */
function internalNumbers(setting: unknown): string[] {
  return String(setting ?? '')
    .split(',')
    .map((value) => value.replace(/\D/g, ''))
    .filter(Boolean);
}

function cleanMedia(media: HeaderMediaInput): HeaderMediaInput {
  return {
    ...(media.link ? { link: media.link.trim() } : {}),
    ...(media.id ? { id: media.id.trim() } : {}),
    ...(media.fileName ? { fileName: media.fileName.trim() } : {}),
  };
}

/** What the adapter sends for a template: names for a NAMED one, the header's medium for a media header. */
function templateSend(
  template: { name: string; language: string },
  view: Pick<ChannelTemplateView, 'parameterFormat' | 'headerFormat' | 'headerParameters' | 'bodyParameters'>,
  values: { header: string[]; body: string[] },
  headerMedia: HeaderMediaInput | null,
): TemplateSend {
  const media = view.headerFormat && view.headerFormat !== 'TEXT' && headerMedia ? cleanMedia(headerMedia) : null;
  return {
    name: template.name,
    language: template.language,
    bodyParameters: values.body,
    headerParameters: media ? [] : values.header,
    ...(view.parameterFormat === 'NAMED' ? { parameterNames: { header: view.headerParameters, body: view.bodyParameters } } : {}),
    ...(media ? { headerMedia: { kind: view.headerFormat!.toLowerCase() as 'image' | 'video' | 'document', ...media } } : {}),
  };
}

/** A provider's refusal as the API answers it: Meta's validation (code 100 etc.) as 400 with its text, an outage as 503. */
function providerRefusal(error: unknown): AppException {
  if (!(error instanceof ChannelError)) return error as AppException;
  if (error.details.retryable) return new AppException('service_unavailable', { message: `WhatsApp is not answering: ${error.message}` });
  return new AppException('validation', { message: `WhatsApp refused the template: ${error.message}` });
}
