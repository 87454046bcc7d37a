import { validateVoiceSettings, VOICE_QUEUE_ANNOUNCEMENT, type VoiceSettings } from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { assertRules } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { IvrPromptsService, type UploadedAudio } from './ivr-prompts.service';

const AUDIT_TYPE = 'voiceSettings';

/**
 * The tenant's voice settings (table voice_settings; no row = the defaults): its own hold music, stored as an
 * IVR prompt file (uploaded and converted the same way, so the voice server plays it from the same cache), and
 * how often queued callers hear their position. The voice server reads the row when a call joins a queue.
 */
@Injectable()
export class VoiceSettingsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly prompts: IvrPromptsService,
    private readonly audit: AuditService,
  ) {}

  async get(clientId: string, db: DataSource | EntityManager = this.dataSource): Promise<VoiceSettings> {
    const [row] = (await db.query(`SELECT hold_music_file_id, queue_announcement_seconds FROM voice_settings WHERE client_id = $1`, [
      clientId,
    ])) as { hold_music_file_id: string | null; queue_announcement_seconds: number }[];
    return {
      holdMusicFileId: row?.hold_music_file_id ?? null,
      queueAnnouncementSeconds: row ? Number(row.queue_announcement_seconds) : VOICE_QUEUE_ANNOUNCEMENT.default,
    };
  }

  async update(principal: Principal, body: Partial<VoiceSettings>): Promise<VoiceSettings> {
    const seconds = body.queueAnnouncementSeconds ?? VOICE_QUEUE_ANNOUNCEMENT.default;
    assertRules(validateVoiceSettings({ queueAnnouncementSeconds: seconds }));
    return this.change(principal, { queue_announcement_seconds: seconds });
  }

  /** Stores an uploaded hold music (wav, mp3, ogg; converted like a recorded prompt) and makes it the tenant's. */
  async setHoldMusic(principal: Principal, file: UploadedAudio | undefined): Promise<VoiceSettings & { seconds: number }> {
    const { fileId, seconds } = await this.prompts.upload(principal.clientId, file);
    return { ...(await this.change(principal, { hold_music_file_id: fileId })), seconds };
  }

  /** Back to the built-in hold music. */
  clearHoldMusic(principal: Principal): Promise<VoiceSettings> {
    return this.change(principal, { hold_music_file_id: null });
  }

  /** The tenant's hold music as a stream (the console's preview), or 404 when it uses the built-in one. */
  async openHoldMusic(clientId: string) {
    const { holdMusicFileId } = await this.get(clientId);
    if (!holdMusicFileId) throw AppException.notFound();
    return this.prompts.open(clientId, holdMusicFileId);
  }

  private change(
    principal: Principal,
    fields: { hold_music_file_id?: string | null; queue_announcement_seconds?: number },
  ): Promise<VoiceSettings> {
    return this.dataSource.transaction(async (manager) => {
      const before = await this.get(principal.clientId, manager);
      const columns = Object.keys(fields);
      const values = Object.values(fields);
      await manager.query(
        `INSERT INTO voice_settings (client_id, ${columns.join(', ')}) VALUES ($1, ${columns.map((_, i) => `$${i + 2}`).join(', ')})
         ON CONFLICT (client_id) DO UPDATE SET ${columns.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}, updated_at = now()`,
        [principal.clientId, ...values],
      );
      const after = await this.get(principal.clientId, manager);
      await this.audit.record(
        principal,
        { entityType: AUDIT_TYPE, entityId: principal.clientId, action: 'update', before, after },
        manager,
      );
      return after;
    });
  }
}
