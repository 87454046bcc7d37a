import { createHmac, timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import { VOICE_RECORDING_MISSING_MESSAGE, type VoiceRecordingKind, type VoiceRecordingView } from '@centralita/contracts';
import type { FileStore } from '@centralita/contracts/server';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import type { Principal } from '../auth/principal';
import { DeskService } from '../conversations/desk.service';
import { FILE_STORE } from '../files/files.module';

/** How long a recording's signed URL plays (an <audio> element keeps asking for ranges while it plays). */
const URL_TTL_SECONDS = 3600;

interface RecordingRow {
  id: string;
  client_id: string;
  call_id: string;
  conversation_id: string | null;
  kind: VoiceRecordingKind;
  agent_id: string | null;
  agent_name: string | null;
  from_number: string | null;
  duration_ms: number;
  created_at: Date;
}

/** One byte range of a file (inclusive), as HTTP Range asks. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Reads `bytes=a-b`, `bytes=a-` and `bytes=-n` against the file's size: the range, 'unsatisfiable' (416), or null
 * when there is no usable Range header (the whole file; several ranges are answered whole too, as RFC 9110 allows).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec((header ?? '').trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/** The bytes start..end (inclusive) of a stream, without holding more than one chunk. */
export function sliceStream(source: Readable, range: ByteRange): Readable {
  async function* slice() {
    let offset = 0;
    for await (const chunk of source as AsyncIterable<Buffer>) {
      const from = Math.max(0, range.start - offset);
      const to = Math.min(chunk.length, range.end + 1 - offset);
      if (to > from) yield chunk.subarray(from, to);
      offset += chunk.length;
      if (offset > range.end) break;
    }
    source.destroy();
  }
  return Readable.from(slice());
}

/**
 * Inbound call recordings (issue 22 item 3) as the console plays them: the conversation's list for staff who may see
 * the conversation, each with a signed, short-lived URL (an <audio> element cannot send the bearer token), and the
 * bytes behind that URL with Range support. A recording the retention sweep deleted, or whose file the store cannot
 * give, answers 404 with the spec's 'The audio was not found, please try again later.'.
 */
@Injectable()
export class VoiceRecordingsService {
  private readonly key: Buffer;

  constructor(
    private readonly dataSource: DataSource,
    private readonly desk: DeskService,
    @Inject(FILE_STORE) private readonly store: FileStore,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.key = createHmac('sha256', config.jwt.secret).update('centralita voice recording urls').digest();
  }

  /** A conversation's recordings for whoever may see it on the desk (its agent, or a supervisor), newest first. */
  async recordings(principal: Principal, conversationId: string): Promise<VoiceRecordingView[]> {
    await this.desk.visible(principal, conversationId);
    return this.recordingsOf(principal.clientId, conversationId);
  }

  /** The recordings of a conversation already checked as visible (the case transcript). */
  async recordingsOf(tenantId: string, conversationId: string): Promise<VoiceRecordingView[]> {
    const rows = (await this.dataSource.query(
      `SELECT r.*, u.name AS agent_name, c.from_number FROM voice_recordings r
         JOIN voice_calls c ON c.id = r.call_id
         LEFT JOIN users u ON u.id = r.agent_id
        WHERE r.conversation_id = $1 AND r.client_id = $2 ORDER BY r.created_at DESC`,
      [conversationId, tenantId],
    )) as RecordingRow[];
    const now = Math.floor(Date.now() / 1000);
    return rows.map((row) => {
      const url = this.url(row.client_id, row.id, now);
      return {
        id: row.id,
        callId: row.call_id,
        conversationId: row.conversation_id,
        kind: row.kind,
        agentId: row.agent_id,
        agentName: row.agent_name,
        from: row.from_number,
        durationMs: row.duration_ms,
        createdAt: row.created_at.toISOString(),
        url,
        downloadUrl: `${url}&download=1`,
      };
    });
  }

  url(tenantId: string, recordingId: string, nowSeconds: number, ttlSeconds = URL_TTL_SECONDS): string {
    const expires = nowSeconds + ttlSeconds;
    return `/api/voice/recordings/${recordingId}/audio?t=${tenantId}&e=${expires}&s=${this.signature(tenantId, recordingId, expires)}`;
  }

  private signature(tenantId: string, recordingId: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${tenantId}.${recordingId}.${expires}`).digest('base64url');
  }

  private verify(tenantId: string, recordingId: string, expires: number, signature: string): boolean {
    if (!Number.isInteger(expires) || expires < Math.floor(Date.now() / 1000)) return false;
    const expected = Buffer.from(this.signature(tenantId, recordingId, expires));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /** The WAV behind a signed URL that still holds; 404 (plain for a bad link, the spec's message for missing audio). */
  async content(recordingId: string, query: { t?: unknown; e?: unknown; s?: unknown }): Promise<{ stream: Readable; byteSize: number }> {
    const tenantId = typeof query.t === 'string' ? query.t : '';
    if (!this.verify(tenantId, recordingId, Number(query.e), typeof query.s === 'string' ? query.s : '')) throw AppException.notFound();
    const [row] = (await this.dataSource.query(`SELECT file_id FROM voice_recordings WHERE id = $1 AND client_id = $2`, [
      recordingId,
      tenantId,
    ])) as { file_id: string }[];
    const file = row ? await this.store.open(tenantId, row.file_id).catch(() => null) : null;
    if (!file) throw new AppException('not_found', { message: VOICE_RECORDING_MISSING_MESSAGE, messageKey: 'audioNotFound' });
    return file;
  }
}
