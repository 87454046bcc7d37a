import { randomBytes } from 'node:crypto';
import { ChannelError, type ChannelAdapter } from '@centralita/channels';
import type {
  ApiMessageKey,
  ApiMessageParams,
  ChannelAccountInput,
  ChannelAccountUpdate,
  ChannelAccountView,
  TemplateView,
} from '@centralita/contracts';
import { ConfigCrypto } from '@centralita/contracts/server';
import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { isUniqueViolation } from '../admin/rule-check';
import { channelAccountView, type ChannelAccountRow } from './channel-account.row';
import { ChannelAdaptersService } from './channel-adapters.service';

const LIMITS = { name: 120, externalAccountId: 200, settingValue: 500, secretValue: 4096 } as const;

/** What POST /api/channel-accounts/:id/register-webhook answers: where the provider now posts, or its reason for refusing. */
export interface ChannelAccountRegisterWebhookResult {
  ok: boolean;
  message: string;
}

/** What POST /api/channel-accounts/:id/test answers: the provider's name for the account, or its reason for refusing. */
export interface ChannelAccountTestResult {
  ok: boolean;
  name?: string;
  message?: string;
}

const invalid = (field: string, message: string, messageKey?: ApiMessageKey, params?: ApiMessageParams) =>
  new AppException('validation', { message, messageKey, params, data: { fields: { [field]: [message] } } });

/**
 * Connected provider accounts of a tenant. Secrets are encrypted with ConfigCrypto before they are
 * stored and never answered (only which names are set); the verify token is generated here, once.
 * Another tenant's account is not found (404), as a deleted one is.
 */
@Injectable()
export class ChannelAccountsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly adapters: ChannelAdaptersService,
    private readonly crypto: ConfigCrypto,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(tenantId: string): Promise<ChannelAccountView[]> {
    const rows = (await this.dataSource.query(
      `SELECT * FROM channel_accounts WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
      [tenantId],
    )) as ChannelAccountRow[];
    return rows.map((row) => this.view(row));
  }

  async get(tenantId: string, id: string): Promise<ChannelAccountView> {
    return this.view(await this.row(tenantId, id));
  }

  async create(tenantId: string, input: ChannelAccountInput): Promise<ChannelAccountView> {
    const kind = typeof input.kind === 'string' ? input.kind : '';
    const adapter = this.adapters.usable(kind);
    if (!adapter)
      throw invalid(
        'kind',
        `kind must be one of ${this.adapters
          .kinds()
          .filter((k) => k.enabled)
          .map((k) => k.kind)
          .join(', ')}`,
      );
    const name = text('name', input.name, LIMITS.name);
    const externalAccountId = text('externalAccountId', input.externalAccountId, LIMITS.externalAccountId);
    const lineId = await this.tenantLine(tenantId, input.attentionLineId);
    const settings = checkSettings(adapter, input.settings ?? {});
    checkAdapterSettings(adapter, settings, externalAccountId);
    const secrets = checkSecrets(adapter, input.secrets ?? {});
    const missing = adapter.credentials.secrets.filter((secret) => !secrets[secret]);
    if (missing.length)
      throw invalid(
        `secrets.${missing[0]}`,
        `secrets ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} required for ${kind}`,
        'channelSecretRequired',
        {
          secret: missing.join(', '),
        },
      );
    const enabled = input.enabled === undefined ? true : checkBoolean('enabled', input.enabled);
    // The token the provider echoes (Meta's verify token, Telegram's secret header): 32 random bytes.
    const verifyToken = randomBytes(32).toString('base64url');
    try {
      const [row] = (await this.dataSource.query(
        `INSERT INTO channel_accounts (tenant_id, kind, name, external_account_id, attention_line_id, settings, secrets, verify_token, enabled)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
        [tenantId, kind, name, externalAccountId, lineId, settings, this.encrypt(secrets), verifyToken, enabled],
      )) as ChannelAccountRow[];
      return this.view(row);
    } catch (error) {
      throw duplicateOr(error);
    }
  }

  /** Any field but the kind; `secrets` replaces only the names it carries. */
  async update(tenantId: string, id: string, input: ChannelAccountUpdate & { kind?: unknown }): Promise<ChannelAccountView> {
    const current = await this.row(tenantId, id);
    if (input.kind !== undefined && input.kind !== current.kind)
      throw invalid('kind', 'kind cannot change: connect a new account instead', 'channelKindFixed');
    const adapter = this.adapters.usable(current.kind);
    if (!adapter) throw invalid('kind', `${current.kind} is not offered by this deployment`, 'channelKindNotOffered');
    const name = input.name === undefined ? current.name : text('name', input.name, LIMITS.name);
    const externalAccountId =
      input.externalAccountId === undefined
        ? current.external_account_id
        : text('externalAccountId', input.externalAccountId, LIMITS.externalAccountId);
    const lineId = input.attentionLineId === undefined ? current.attention_line_id : await this.tenantLine(tenantId, input.attentionLineId);
    const settings = input.settings === undefined ? current.settings : { ...current.settings, ...checkSettings(adapter, input.settings) };
    checkAdapterSettings(adapter, settings, externalAccountId);
    const secrets = { ...current.secrets, ...this.encrypt(checkSecrets(adapter, input.secrets ?? {})) };
    const enabled = input.enabled === undefined ? current.enabled : checkBoolean('enabled', input.enabled);
    try {
      const [[row]] = (await this.dataSource.query(
        `UPDATE channel_accounts SET name = $3, external_account_id = $4, attention_line_id = $5, settings = $6, secrets = $7,
           enabled = $8, updated_at = now()
         WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL RETURNING *`,
        [id, tenantId, name, externalAccountId, lineId, settings, secrets, enabled],
      )) as [ChannelAccountRow[], number];
      if (!row) throw AppException.notFound();
      return this.view(row);
    } catch (error) {
      throw duplicateOr(error);
    }
  }

  /** Soft delete: webhooks for it answer 404 from now on, and its provider id may be connected again. */
  async remove(tenantId: string, id: string): Promise<{ id: string }> {
    const [, count] = (await this.dataSource.query(
      `UPDATE channel_accounts SET deleted_at = now(), enabled = false, updated_at = now() WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL`,
      [id, tenantId],
    )) as [unknown, number];
    if (count === 0) throw AppException.notFound();
    return { id };
  }

  /**
   * Calls the provider with the stored credentials and keeps the outcome (the console shows it). A
   * provider that refuses is an answer (ok: false with its reason), not an error of this API.
   */
  async test(tenantId: string, id: string): Promise<ChannelAccountTestResult> {
    const row = await this.row(tenantId, id);
    const adapter = this.requireAdapter(row);
    let result: ChannelAccountTestResult;
    try {
      const { name } = await adapter.testConnection(this.adapters.toAdapterAccount(row));
      result = { ok: true, name };
    } catch (error) {
      result = { ok: false, message: providerReason(error) };
    }
    const lastCheck = {
      ok: result.ok,
      at: new Date().toISOString(),
      message: result.ok ? (result.name ?? null) : (result.message ?? null),
    };
    await this.dataSource.query(`UPDATE channel_accounts SET last_check = $3 WHERE id = $1 AND tenant_id = $2`, [id, tenantId, lastCheck]);
    return result;
  }

  /**
   * Asks the provider to post the account's events to its webhook URL (the one the console shows),
   * with the account's verify token. Kinds whose provider has no API for it answer 400 (the URL is
   * pasted at the provider by hand); a provider that refuses is an answer (ok: false with its reason).
   */
  async registerWebhook(tenantId: string, id: string): Promise<ChannelAccountRegisterWebhookResult> {
    const row = await this.row(tenantId, id);
    const adapter = this.requireAdapter(row);
    if (!adapter.registerWebhook) {
      throw new AppException('validation', {
        message: `${row.kind} webhooks cannot be registered from here: paste the webhook URL at the provider`,
        messageKey: 'channelWebhookManual',
      });
    }
    const { webhookUrl } = this.view(row);
    try {
      await adapter.registerWebhook(this.adapters.toAdapterAccount(row), webhookUrl);
      return { ok: true, message: webhookUrl };
    } catch (error) {
      return { ok: false, message: providerReason(error) };
    }
  }

  /** The account's approved templates (kinds whose capabilities have templates; others answer 400). */
  async templates(tenantId: string, id: string): Promise<TemplateView[]> {
    const row = await this.row(tenantId, id);
    const adapter = this.requireAdapter(row);
    if (!adapter.capabilities.templates || !adapter.listTemplates) {
      throw new AppException('validation', { message: `${row.kind} accounts have no message templates`, messageKey: 'channelNoTemplates' });
    }
    try {
      const templates = await adapter.listTemplates(this.adapters.toAdapterAccount(row));
      return templates.map(({ name, language, category, body, parameterCount, headerText, headerParameterCount, ...more }) => ({
        name,
        language,
        category,
        body,
        parameterCount,
        headerText,
        headerParameterCount,
        parameterFormat: more.parameterFormat ?? 'POSITIONAL',
        headerParameterNames: more.headerParameterNames ?? [],
        bodyParameterNames: more.bodyParameterNames ?? [],
        parameterExamples: more.parameterExamples ?? {},
        headerFormat: more.headerFormat ?? (headerText === null ? null : 'TEXT'),
      }));
    } catch (error) {
      throw new AppException('service_unavailable', {
        status: HttpStatus.BAD_GATEWAY,
        message: `The provider did not list the templates: ${providerReason(error)}`,
      });
    }
  }

  private requireAdapter(row: ChannelAccountRow): ChannelAdapter {
    const adapter = this.adapters.usable(row.kind);
    if (!adapter)
      throw new AppException('validation', {
        message: `${row.kind} is not offered by this deployment`,
        messageKey: 'channelKindNotOffered',
      });
    return adapter;
  }

  private async row(tenantId: string, id: string): Promise<ChannelAccountRow> {
    const [row] = (await this.dataSource.query(`SELECT * FROM channel_accounts WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL`, [
      id,
      tenantId,
    ])) as ChannelAccountRow[];
    if (!row) throw AppException.notFound();
    return row;
  }

  /** The line must be the tenant's and live; another tenant's line is named as not found, never as theirs. */
  private async tenantLine(tenantId: string, lineId: unknown): Promise<string> {
    if (typeof lineId !== 'string' || !isUUID(lineId)) throw invalid('attentionLineId', 'attentionLineId must be a UUID');
    const [line] = (await this.dataSource.query(`SELECT id FROM attention_lines WHERE id = $1 AND client_id = $2 AND deleted_at IS NULL`, [
      lineId,
      tenantId,
    ])) as { id: string }[];
    if (!line) throw invalid('attentionLineId', 'attentionLineId is not an attention line of this organisation', 'channelLineNotFound');
    return line.id;
  }

  private encrypt(secrets: Record<string, string>): Record<string, string> {
    if (Object.keys(secrets).length && !this.crypto.configured) {
      throw new AppException('service_unavailable', {
        message: 'Secrets cannot be stored: the server has no CONFIG_ENCRYPTION_KEY (see docs/operations.md)',
        messageKey: 'channelNoEncryptionKey',
      });
    }
    return Object.fromEntries(Object.entries(secrets).map(([name, value]) => [name, this.crypto.encrypt(value)]));
  }

  private view(row: ChannelAccountRow): ChannelAccountView {
    return channelAccountView(row, this.config.publicUrl);
  }
}

function text(field: string, value: unknown, max: number): string {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  if (!trimmed || trimmed.length > max) throw invalid(field, `${field} must have 1 to ${max} characters`);
  return trimmed;
}

function checkBoolean(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw invalid(field, `${field} must be true or false`);
  return value;
}

/** Plain strings under the names the adapter declares; anything else is named in a 400. */
function checkNamed(field: 'settings' | 'secrets', allowed: readonly string[], values: unknown, max: number): Record<string, string> {
  if (values === null || typeof values !== 'object' || Array.isArray(values)) throw invalid(field, `${field} must be an object of texts`);
  const checked: Record<string, string> = {};
  for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
    if (!allowed.includes(name)) {
      throw invalid(
        `${field}.${name}`,
        `${field}.${name} is not a ${field === 'secrets' ? 'secret' : 'setting'} of this channel (${allowed.join(', ') || 'none'})`,
      );
    }
    if (typeof value !== 'string' || value.length > max)
      throw invalid(`${field}.${name}`, `${field}.${name} must be a text of at most ${max} characters`);
    checked[name] = value.trim();
  }
  return checked;
}

function checkSettings(adapter: ChannelAdapter, values: unknown): Record<string, string> {
  return checkNamed('settings', adapter.credentials.settings, values, LIMITS.settingValue);
}

/** Secrets given are set (all are required: an empty one is refused rather than stored). */
function checkSecrets(adapter: ChannelAdapter, values: unknown): Record<string, string> {
  const secrets = checkNamed('secrets', adapter.credentials.secrets, values, LIMITS.secretValue);
  for (const [name, value] of Object.entries(secrets)) if (!value) throw invalid(`secrets.${name}`, `secrets.${name} must not be empty`);
  return secrets;
}

function duplicateOr(error: unknown): unknown {
  if (isUniqueViolation(error, 'uq_channel_accounts_external')) {
    return new AppException('conflict', {
      message: 'This provider account is already connected (externalAccountId)',
      messageKey: 'channelAccountConnected',
      data: { fields: { externalAccountId: ['This provider account is already connected'] } },
    });
  }
  return error;
}

/** The provider's reason for a failed call, as the administrator should read it. */
export function providerReason(error: unknown): string {
  if (error instanceof ChannelError) return error.message;
  return error instanceof Error ? `The provider could not be reached: ${error.message}` : 'The provider could not be reached';
}

/** The adapter's own check of what was typed (email: hosts, ports, addresses), answered 400 naming the field. */
function checkAdapterSettings(adapter: ChannelAdapter, settings: Record<string, string>, externalAccountId: string): void {
  const problem = adapter.settingsProblem?.(settings, externalAccountId);
  if (problem) throw invalid(problem.field, problem.message);
}
