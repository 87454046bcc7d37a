import {
  CHANNEL_FIELDS,
  CHANNEL_IDS,
  DEFAULT_EMOTICONS,
  DEFAULT_PLATFORM_SETTINGS,
  SECRET_MASK,
  validatePlatformSettings,
  type ChannelConfigInput,
  type ChannelConfigView,
  type ChannelName,
  type PlatformSettings,
} from '@centralita/contracts';
import { ConfigCrypto } from '@centralita/contracts/server';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { assertRules } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { REALTIME_CONFIG, type RealtimeConfig } from '../machine-host/realtime-config';
import { ChannelConfig, PlatformSettingsRow } from './platform-settings.entities';

const CHANNELS = Object.keys(CHANNEL_FIELDS) as ChannelName[];

@Injectable()
export class PlatformSettingsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly crypto: ConfigCrypto,
    private readonly audit: AuditService,
    @Inject(REALTIME_CONFIG) private readonly realtime: RealtimeConfig,
  ) {}

  /** Defaults as the server applies them: the queue wait unsaved is the operator's QUEUE_TIMEOUT_SECONDS. */
  private defaults(): PlatformSettings {
    return {
      ...DEFAULT_PLATFORM_SETTINGS,
      maxQueueWaitSeconds: this.realtime.defaultQueueTimeoutSeconds,
      emoticons: [...DEFAULT_EMOTICONS],
    };
  }

  /**
   * The settings in effect, never a value that is not applied: unsaved messages are '' (the widget
   * then uses its own text in the visitor's language) and no configured emoticons means the list the
   * desk offers (DEFAULT_EMOTICONS), exactly as `emoticons()` and the web chat read them.
   */
  async getSettings(clientId: string): Promise<PlatformSettings> {
    const row = await this.dataSource.getRepository(PlatformSettingsRow).findOne({ where: { clientId } });
    if (!row) return this.defaults();
    const saved = row.settings as Partial<PlatformSettings>;
    return {
      ...this.defaults(),
      ...saved,
      welcomeMessage: typeof saved.welcomeMessage === 'string' ? saved.welcomeMessage.trim() : '',
      offHoursMessage: typeof saved.offHoursMessage === 'string' ? saved.offHoursMessage.trim() : '',
      emoticons: row.emoticons.length > 0 ? row.emoticons : [...DEFAULT_EMOTICONS],
      // Saved before call recording existed: its defaults (the worker reads the same keys, absent = off).
      callRecording: saved.callRecording === true,
      announceCallRecording: saved.announceCallRecording !== false,
      callRecordingRetentionDays:
        typeof saved.callRecordingRetentionDays === 'number'
          ? saved.callRecordingRetentionDays
          : DEFAULT_PLATFORM_SETTINGS.callRecordingRetentionDays,
    };
  }

  /** The one setting every signed-in user's console reads (in the session user, not through settings.manage). */
  async idleLogoutMinutes(clientId: string): Promise<number> {
    return (await this.getSettings(clientId)).idleLogoutMinutes;
  }

  /** Only what the tenant saved: [] when it configured none (the desk then offers its own list). */
  async emoticons(clientId: string): Promise<string[]> {
    const row = await this.dataSource
      .getRepository(PlatformSettingsRow)
      .findOne({ where: { clientId }, select: { clientId: true, emoticons: true } });
    return row?.emoticons ?? [];
  }

  async saveSettings(principal: Principal, body: Partial<PlatformSettings>): Promise<PlatformSettings> {
    const input: PlatformSettings = {
      welcomeMessage: (body.welcomeMessage ?? '').trim(),
      offHoursMessage: (body.offHoursMessage ?? '').trim(),
      idleLogoutMinutes: body.idleLogoutMinutes as number,
      maxQueueWaitSeconds: body.maxQueueWaitSeconds as number,
      emoticons: [...new Set((body.emoticons ?? []).map((e) => e.trim()).filter(Boolean))],
      callRecording: body.callRecording ?? false,
      announceCallRecording: body.announceCallRecording ?? DEFAULT_PLATFORM_SETTINGS.announceCallRecording,
      callRecordingRetentionDays: body.callRecordingRetentionDays ?? DEFAULT_PLATFORM_SETTINGS.callRecordingRetentionDays,
    };
    assertRules(validatePlatformSettings(input));
    const before = await this.getSettings(principal.clientId);
    const { emoticons, ...settings } = input;
    await this.dataSource.transaction(async (manager) => {
      await manager.getRepository(PlatformSettingsRow).upsert({ clientId: principal.clientId, settings, emoticons }, ['clientId']);
      await this.audit.record(
        principal,
        { entityType: 'platform-settings', entityId: principal.clientId, action: 'update', before, after: input },
        manager,
      );
    });
    return this.getSettings(principal.clientId);
  }

  async listChannels(clientId: string): Promise<ChannelConfigView[]> {
    const rows = await this.dataSource.getRepository(ChannelConfig).find({ where: { clientId } });
    return CHANNELS.map((channel) => this.view(channel, rows.find((row) => row.channel === channel) ?? null));
  }

  /** Secrets arrive in clear over TLS, are stored encrypted, and are only ever answered masked. */
  async saveChannel(principal: Principal, channel: string, body: Partial<ChannelConfigInput>): Promise<ChannelConfigView> {
    if (!CHANNELS.includes(channel as ChannelName)) throw AppException.notFound();
    const name = channel as ChannelName;
    const fields = CHANNEL_FIELDS[name];
    const unknown = [
      ...Object.keys(body.settings ?? {}).filter((k) => !fields.settings.includes(k)),
      ...Object.keys(body.secrets ?? {}).filter((k) => !fields.secrets.includes(k)),
    ];
    if (unknown.length) assertRules([{ field: 'settings', key: 'unknown', values: { values: unknown.join(', ') } }]);
    const tooLong = Object.entries({ ...body.settings, ...body.secrets }).find(([, v]) => typeof v !== 'string' || v.length > 2000);
    if (tooLong) assertRules([{ field: tooLong[0], key: 'maxLength', values: { count: 2000 } }]);

    return this.dataSource.transaction(async (manager) => {
      const repo = manager.getRepository(ChannelConfig);
      const current = await repo.findOne({ where: { clientId: principal.clientId, channel: name } });
      const before = this.view(name, current);
      const secrets = { ...(current?.secrets ?? {}) };
      for (const [key, value] of Object.entries(body.secrets ?? {})) {
        if (value === SECRET_MASK) continue;
        if (value === '') delete secrets[key];
        else secrets[key] = this.crypto.encrypt(value);
      }
      const settings = Object.fromEntries(Object.entries(body.settings ?? {}).map(([k, v]) => [k, v.trim()]));
      const row = await repo.save(
        current
          ? repo.merge(current, { enabled: body.enabled ?? current.enabled, settings, secrets })
          : repo.create({ clientId: principal.clientId, channel: name, enabled: body.enabled ?? false, settings, secrets }),
      );
      const after = this.view(name, row);
      // The audit trail sees masks only, and which secrets changed.
      const changedSecrets = Object.keys(body.secrets ?? {}).filter((k) => body.secrets![k] !== SECRET_MASK);
      await this.audit.record(
        principal,
        {
          entityType: 'channel-config',
          entityId: row.id,
          action: current ? 'update' : 'create',
          before,
          after: { ...after, changedSecrets },
        },
        manager,
      );
      return after;
    });
  }

  /** Decrypted secrets for server-side use (webhooks, senders); never for an HTTP answer. */
  async channelSecrets(clientId: string, channel: ChannelName): Promise<Record<string, string>> {
    const row = await this.dataSource.getRepository(ChannelConfig).findOne({ where: { clientId, channel } });
    return Object.fromEntries(Object.entries(row?.secrets ?? {}).map(([k, v]) => [k, this.crypto.decrypt(v)]));
  }

  private view(channel: ChannelName, row: ChannelConfig | null): ChannelConfigView {
    const fields = CHANNEL_FIELDS[channel];
    return {
      channel,
      channelId: CHANNEL_IDS[channel],
      enabled: row?.enabled ?? false,
      settings: Object.fromEntries(fields.settings.map((k) => [k, row?.settings?.[k] ?? ''])),
      secrets: Object.fromEntries(fields.secrets.map((k) => [k, row?.secrets?.[k] ? SECRET_MASK : ''])),
      updatedAt: row?.updatedAt?.toISOString() ?? null,
    };
  }
}
