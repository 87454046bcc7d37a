import {
  LANGUAGES,
  QUEUES,
  VIDEO_LIMITS,
  outboxJob,
  roomName,
  videoRoom,
  type Language,
  type VideoCallEndedBy,
  type VideoCallEvent,
  type VideoCallOffer,
  type VideoCallView,
  type VideoChunkAck,
  type VideoGuestSession,
  type VideoIceConfig,
  type VideoLinkReason,
  type VideoLinkView,
  type VideoRecordingView,
} from '@centralita/contracts';
import { jobEffect, socketEffect, type FileStore } from '@centralita/contracts/server';
import { HttpStatus, Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import type { Principal } from '../auth/principal';
import { DeskService } from '../conversations/desk.service';
import { FILE_STORE } from '../files/files.module';
import { emitEphemeral } from '../machine-host/ephemeral';
import { MachineHostService } from '../machine-host/machine-host.service';
import { writeOutbox, type OutboxEffect } from '../machine-host/outbox';
import { messageView, type ConversationRow, type MessageRow } from '../machine-host/views';
import { RealtimeService } from '../realtime/realtime.service';
import { VIDEO_CONFIG, type VideoConfig } from './video-config';
import { VIDEO_HISTORY, VIDEO_INVITE, callLength } from './video-texts';
import { RecordingUrlSigner, TOKEN_PATTERN, hashToken, iceConfig, newToken } from './video-tokens';

interface CallRow {
  id: string;
  tenant_id: string;
  conversation_id: string;
  agent_id: string;
  status: 'offered' | 'live' | 'ended';
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  started_at: Date | null;
  ended_at: Date | null;
  ended_by: VideoCallEndedBy | null;
  recording_consent_at: Date | null;
}

interface RecordingRow {
  id: string;
  tenant_id: string;
  call_id: string;
  conversation_id: string;
  status: VideoRecordingView['status'];
  chunks: number;
  byte_size: string | number;
  duration_ms: number | null;
  format: string | null;
  created_at: Date;
}

/** What a guest key speaks for: one live call. */
export interface VideoGuest {
  callId: string;
  tenantId: string;
  conversationId: string;
  agentId: string;
}

/** TypeORM answers an UPDATE … RETURNING with [rows, count] on PostgreSQL, an INSERT with its rows. */
function returned<T>(result: unknown): T[] {
  const answer = result as unknown[];
  return (Array.isArray(answer[0]) ? answer[0] : answer) as T[];
}

const iso = (value: Date | null): string | null => (value ? new Date(value).toISOString() : null);

export function callView(row: CallRow): VideoCallView {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    status: row.status,
    createdAt: iso(row.created_at)!,
    expiresAt: iso(row.expires_at)!,
    usedAt: iso(row.used_at),
    startedAt: iso(row.started_at),
    endedAt: iso(row.ended_at),
    endedBy: row.ended_by,
    recordingConsentAt: iso(row.recording_consent_at),
  };
}

/** A link that cannot be used: 404 for one never issued, 410 Gone for the rest; `data.reason` is what the page translates. */
export function linkRefused(reason: VideoLinkReason): AppException {
  const messages: Record<VideoLinkReason, string> = {
    unknown: 'This video call link does not exist',
    expired: 'This video call link has expired',
    used: 'This video call link has already been used',
    ended: 'This video call has ended',
    conversation_closed: 'The conversation this video call belongs to is no longer open',
  };
  return reason === 'unknown'
    ? new AppException('not_found', { message: messages.unknown, data: { reason } })
    : new AppException('conflict', { status: HttpStatus.GONE, message: messages[reason], data: { reason } });
}

/** Why a link cannot be used now, or null when it can. Pure: the order of the checks is the contract. */
export function linkProblem(
  call: Pick<CallRow, 'status' | 'used_at' | 'expires_at' | 'agent_id'> | undefined,
  conversation: { status: string; agent_id: string | null } | undefined,
  now: Date,
): VideoLinkReason | null {
  if (!call) return 'unknown';
  if (call.status === 'ended') return 'ended';
  if (call.used_at) return 'used';
  if (new Date(call.expires_at).getTime() <= now.getTime()) return 'expired';
  if (!conversation || conversation.status !== 'Active' || conversation.agent_id !== call.agent_id) return 'conversation_closed';
  return null;
}

export type ChunkDecision = 'take' | 'duplicate' | 'mismatch' | 'closed' | 'out_of_order';

/**
 * What to do with chunk `index` of a recording that has `taken` chunks: a stored index with the
 * same bytes is a retried upload (acknowledged), with other bytes a conflict; a new index is taken
 * only while recording and only as the next one.
 */
export function chunkDecision(
  stored: string | null,
  given: string,
  recording: { status: string; chunks: number },
  index: number,
): ChunkDecision {
  if (stored !== null) return stored === given ? 'duplicate' : 'mismatch';
  if (recording.status !== 'recording') return 'closed';
  return index === recording.chunks ? 'take' : 'out_of_order';
}

/**
 * Video calls and their recordings (issue 23 items 1 and 2). An agent offers a call from the
 * Active conversation they handle: the customer gets a single-use, expiring link as a chat message
 * (web chat or any messaging channel, through the agent's normal send path). Opening it and
 * joining uses the link up and hands the customer a guest key for the call's signalling (visitor
 * namespace), TURN credentials and consent. The call's start and end are system messages in the
 * conversation's history. Recordings are uploaded by the agent's browser in ordered chunks and
 * finalised by the worker (QUEUES.videoRecording).
 */
@Injectable()
export class VideoService implements OnModuleInit {
  readonly urls: RecordingUrlSigner;

  constructor(
    private readonly dataSource: DataSource,
    private readonly host: MachineHostService,
    private readonly desk: DeskService,
    private readonly realtime: RealtimeService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(VIDEO_CONFIG) private readonly video: VideoConfig,
    @Inject(FILE_STORE) private readonly store: FileStore,
  ) {
    this.urls = new RecordingUrlSigner(config.jwt.secret);
  }

  private now(): Date {
    return new Date();
  }

  onModuleInit(): void {
    this.host.onConversationReleased((manager, conversation) => this.endWithConversation(manager, conversation));
  }

  /**
   * The agent let go of the conversation (closed, transferred, re-queued; run by the machine host
   * in that step's transaction, the conversation locked): its call ends for both parties with it,
   * so the customer's link and guest key stop working. The end, the history line and the late
   * finalise of a recording leave through the step's outbox.
   */
  async endWithConversation(manager: EntityManager, conversation: ConversationRow): Promise<OutboxEffect[]> {
    const ended = returned<CallRow>(
      await manager.query(
        `UPDATE video_calls SET status = 'ended', ended_at = now(), ended_by = 'conversation_closed'
         WHERE conversation_id = $1 AND status <> 'ended' RETURNING *`,
        [conversation.id],
      ),
    );
    if (ended.length === 0) return [];
    const effects: OutboxEffect[] = [];
    for (const row of ended) {
      if (row.started_at) {
        const length = callLength(new Date(row.ended_at!).getTime() - new Date(row.started_at).getTime());
        await this.history(manager, conversation, (texts) => texts.ended(length));
      }
      const event: VideoCallEvent = { callId: row.id, state: 'ended', endedBy: 'conversation_closed' };
      effects.push(
        socketEffect(
          {
            namespace: 'staff',
            rooms: [videoRoom(row.id), roomName({ kind: 'agent', id: row.agent_id })],
            event: 'video.call',
            data: event,
          },
          { namespace: 'visitor', rooms: [videoRoom(row.id)], event: 'video.call', data: event },
        ),
      );
    }
    const recordings = (await manager.query(`SELECT id, tenant_id FROM video_recordings WHERE call_id = ANY($1) AND status = 'recording'`, [
      ended.map((row) => row.id),
    ])) as { id: string; tenant_id: string }[];
    // As when a call ends: the agent's last chunk may still be on its way, so the worker starts later.
    for (const recording of recordings) {
      effects.push(
        jobEffect(
          outboxJob(
            QUEUES.videoRecording,
            { name: 'finalise', data: { tenantId: recording.tenant_id, recordingId: recording.id } },
            { jobId: `video-recording.${recording.id}.late`, delayMs: 5_000 },
          ),
        ),
      );
    }
    return effects;
  }

  /** The Active conversation the caller handles; another tenant's (or one they cannot see) is 404. */
  private async handled(principal: Principal, conversationId: string): Promise<ConversationRow> {
    const row = await this.desk.visible(principal, conversationId);
    if (row.status !== 'Active' || row.agent_id !== principal.userId) {
      throw new AppException('illegal_transition', {
        message: `Only the agent handling an Active conversation may offer a video call (it is ${row.status})`,
        data: { event: 'video.offer', state: row.status },
      });
    }
    return row;
  }

  /** A call of the caller's tenant that they are the agent of (404 otherwise, whoever it belongs to). */
  private async ownCall(principal: Principal, callId: string, conversationId?: string): Promise<CallRow> {
    const [call] = (await this.dataSource.query(`SELECT * FROM video_calls WHERE id = $1 AND tenant_id = $2`, [
      callId,
      principal.clientId,
    ])) as CallRow[];
    if (!call || call.agent_id !== principal.userId || (conversationId && call.conversation_id !== conversationId)) {
      throw AppException.notFound();
    }
    return call;
  }

  async offer(principal: Principal, conversationId: string): Promise<VideoCallOffer> {
    await this.handled(principal, conversationId);
    const token = newToken();
    const replaced = await this.host.transaction(async (manager) => {
      await this.host.lockConversation(manager, conversationId, principal.clientId);
      // One call at a time per conversation: a new offer replaces one not yet over.
      const ids = returned<{ id: string }>(
        await manager.query(
          `UPDATE video_calls SET status = 'ended', ended_at = now(), ended_by = 'replaced'
           WHERE conversation_id = $1 AND status <> 'ended' RETURNING id`,
          [conversationId],
        ),
      );
      const [call] = (await manager.query(
        `INSERT INTO video_calls (tenant_id, conversation_id, agent_id, token_hash, expires_at)
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) RETURNING *`,
        [principal.clientId, conversationId, principal.userId, hashToken(token), this.video.linkTtlSeconds],
      )) as CallRow[];
      return { ids: ids.map((row) => row.id), call: call! };
    });
    for (const id of replaced.ids) this.push(id, replaced.call.agent_id, { callId: id, state: 'ended', endedBy: 'replaced' });
    const link = `${this.config.publicUrl}/VideoChatContainer/${token}`;
    try {
      const language = await this.language(principal.clientId);
      await this.desk.send(principal, conversationId, { text: VIDEO_INVITE[language](link) });
    } catch (error) {
      // Nothing reached the customer (reply window closed, opted out…): the call never existed.
      await this.dataSource.query(`DELETE FROM video_calls WHERE id = $1`, [replaced.call.id]);
      throw error;
    }
    return { call: callView(replaced.call), link, videoChatId: token };
  }

  async calls(principal: Principal, conversationId: string): Promise<VideoCallView[]> {
    await this.desk.visible(principal, conversationId);
    const rows = (await this.dataSource.query(
      `SELECT * FROM video_calls WHERE conversation_id = $1 AND tenant_id = $2 ORDER BY created_at DESC LIMIT 20`,
      [conversationId, principal.clientId],
    )) as CallRow[];
    return rows.map(callView);
  }

  async end(principal: Principal, conversationId: string, callId: string): Promise<VideoCallView> {
    await this.ownCall(principal, callId, conversationId);
    return this.finish(callId, 'agent');
  }

  /** The ICE servers for the call's agent (TURN credentials minted now). */
  async agentIce(principal: Principal, callId: string): Promise<VideoIceConfig> {
    const call = await this.ownCall(principal, callId);
    if (call.status === 'ended') throw linkRefused('ended');
    return iceConfig(this.video, call.id, Math.floor(Date.now() / 1000));
  }

  /** The staff socket may take part in the call's signalling: its agent, the call not over. */
  async mayJoin(principal: Principal, callId: string): Promise<boolean> {
    const [call] = (await this.dataSource.query(`SELECT agent_id, status FROM video_calls WHERE id = $1 AND tenant_id = $2`, [
      callId,
      principal.clientId,
    ])) as Pick<CallRow, 'agent_id' | 'status'>[];
    return Boolean(call && call.agent_id === principal.userId && call.status !== 'ended');
  }

  // ---- the customer's side -------------------------------------------------------------------

  private async byToken(
    token: string,
  ): Promise<(CallRow & { conversation_status: string; conversation_agent: string | null }) | undefined> {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const [row] = (await this.dataSource.query(
      `SELECT v.*, c.status AS conversation_status, c.agent_id AS conversation_agent
       FROM video_calls v JOIN conversations c ON c.id = v.conversation_id WHERE v.token_hash = $1`,
      [hashToken(token)],
    )) as (CallRow & { conversation_status: string; conversation_agent: string | null })[];
    return row;
  }

  async linkView(token: string): Promise<VideoLinkView> {
    const call = await this.byToken(token);
    const problem = linkProblem(call, call && { status: call.conversation_status, agent_id: call.conversation_agent }, this.now());
    if (problem) throw linkRefused(problem);
    const [names] = (await this.dataSource.query(
      `SELECT u.name AS agent_name, c.name AS company, c.language FROM users u JOIN clients c ON c.id = u.client_id WHERE u.id = $1`,
      [call!.agent_id],
    )) as { agent_name: string; company: string; language: string }[];
    return {
      status: 'ready',
      agentName: names?.agent_name ?? '',
      companyName: names?.company ?? '',
      language: names?.language ?? 'es',
      expiresAt: iso(call!.expires_at)!,
    };
  }

  /** Uses the link up (once, atomically) and starts the call; the guest key is shown only here. */
  async join(token: string, recordingConsent: boolean): Promise<VideoGuestSession> {
    const found = await this.byToken(token);
    if (!found) throw linkRefused('unknown');
    const guestKey = newToken();
    const joined = await this.host.transaction(async (manager) => {
      const conversation = await this.host.lockConversation(manager, found.conversation_id);
      const [call] = (await manager.query(`SELECT * FROM video_calls WHERE id = $1 FOR NO KEY UPDATE`, [found.id])) as CallRow[];
      const problem = linkProblem(call, conversation, this.now());
      if (problem) throw linkRefused(problem);
      const [row] = returned<CallRow>(
        await manager.query(
          `UPDATE video_calls SET status = 'live', used_at = now(), started_at = now(), guest_key_hash = $2,
             recording_consent_at = CASE WHEN $3::boolean THEN now() ELSE NULL END
           WHERE id = $1 RETURNING *`,
          [call!.id, hashToken(guestKey), recordingConsent],
        ),
      );
      await this.history(manager, conversation, (texts) => texts.started);
      return row!;
    });
    this.push(joined.id, joined.agent_id, { callId: joined.id, state: 'joined' });
    if (recordingConsent) this.push(joined.id, joined.agent_id, { callId: joined.id, state: 'consent' });
    const [agent] = (await this.dataSource.query(`SELECT name FROM users WHERE id = $1`, [joined.agent_id])) as { name: string }[];
    return {
      callId: joined.id,
      guestKey,
      agentName: agent?.name ?? '',
      recordingConsent: Boolean(joined.recording_consent_at),
      ice: iceConfig(this.video, joined.id, Math.floor(Date.now() / 1000)),
    };
  }

  /** The live call a guest key speaks for; anything else is 401 (the page shows the call as over). */
  async guest(guestKey: unknown): Promise<VideoGuest> {
    if (typeof guestKey !== 'string' || !TOKEN_PATTERN.test(guestKey)) {
      throw new AppException('unauthorized', { message: 'A video guest key is required' });
    }
    const [call] = (await this.dataSource.query(`SELECT * FROM video_calls WHERE guest_key_hash = $1`, [hashToken(guestKey)])) as CallRow[];
    if (!call) throw new AppException('unauthorized', { message: 'This video guest key is not valid' });
    if (call.status !== 'live') throw linkRefused('ended');
    return { callId: call.id, tenantId: call.tenant_id, conversationId: call.conversation_id, agentId: call.agent_id };
  }

  /** A reloaded customer page takes its call up again with the guest key it kept (fresh TURN credentials). */
  async resume(guestKey: unknown): Promise<VideoGuestSession> {
    const guest = await this.guest(guestKey);
    const [agent] = (await this.dataSource.query(
      `SELECT u.name, v.recording_consent_at FROM video_calls v JOIN users u ON u.id = v.agent_id WHERE v.id = $1`,
      [guest.callId],
    )) as { name: string; recording_consent_at: Date | null }[];
    return {
      callId: guest.callId,
      guestKey: guestKey as string,
      agentName: agent?.name ?? '',
      recordingConsent: Boolean(agent?.recording_consent_at),
      ice: iceConfig(this.video, guest.callId, Math.floor(Date.now() / 1000)),
    };
  }

  async guestConsent(guestKey: unknown, consent: boolean): Promise<{ recordingConsent: boolean }> {
    const guest = await this.guest(guestKey);
    await this.dataSource.query(
      `UPDATE video_calls SET recording_consent_at = CASE WHEN $2::boolean THEN COALESCE(recording_consent_at, now()) ELSE NULL END WHERE id = $1`,
      [guest.callId, consent],
    );
    this.push(guest.callId, guest.agentId, { callId: guest.callId, state: 'consent' });
    // Consent withdrawn: whatever is being recorded stops now and is kept up to here.
    if (!consent) await this.stopRecordings(guest.callId, 0);
    return { recordingConsent: consent };
  }

  async guestEnd(guestKey: unknown): Promise<VideoCallView> {
    const guest = await this.guest(guestKey);
    return this.finish(guest.callId, 'customer');
  }

  /**
   * Ends a call once (a second end answers the ended call): the history gets its length, both
   * parties hear `ended`, and what was being recorded is finalised a few seconds later (the
   * agent's last chunk may still be on its way).
   */
  async finish(callId: string, endedBy: VideoCallEndedBy): Promise<VideoCallView> {
    const ended = await this.host.transaction(async (manager) => {
      const [current] = (await manager.query(`SELECT conversation_id FROM video_calls WHERE id = $1`, [callId])) as CallRow[];
      if (!current) throw AppException.notFound();
      const conversation = await this.host.lockConversation(manager, current.conversation_id);
      const [row] = returned<CallRow>(
        await manager.query(
          `UPDATE video_calls SET status = 'ended', ended_at = now(), ended_by = $2 WHERE id = $1 AND status <> 'ended' RETURNING *`,
          [callId, endedBy],
        ),
      );
      if (row?.started_at) {
        const length = callLength(new Date(row.ended_at!).getTime() - new Date(row.started_at).getTime());
        await this.history(manager, conversation, (texts) => texts.ended(length));
      }
      return row ?? null;
    });
    const [call] = (await this.dataSource.query(`SELECT * FROM video_calls WHERE id = $1`, [callId])) as CallRow[];
    if (ended) {
      this.push(callId, call!.agent_id, { callId, state: 'ended', endedBy });
      await this.stopRecordings(callId, 5_000);
    }
    return callView(call!);
  }

  // ---- recordings --------------------------------------------------------------------------

  async startRecording(principal: Principal, callId: string, mimeType: string): Promise<VideoRecordingView> {
    const call = await this.ownCall(principal, callId);
    if (call.status !== 'live') {
      throw new AppException('conflict', { message: 'Only a call in progress can be recorded', data: { reason: 'not_live' } });
    }
    if (!call.recording_consent_at) {
      throw new AppException('conflict', {
        message: 'The customer has not agreed to be recorded',
        data: { reason: 'consent_required' },
      });
    }
    const [row] = (await this.dataSource.query(
      `INSERT INTO video_recordings (tenant_id, call_id, conversation_id, started_by, mime_type) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
      [call.tenant_id, call.id, call.conversation_id, principal.userId, mimeType],
    )) as RecordingRow[];
    return this.recordingView(row!);
  }

  private async ownRecording(principal: Principal, callId: string, recordingId: string): Promise<RecordingRow> {
    await this.ownCall(principal, callId);
    const [row] = (await this.dataSource.query(`SELECT * FROM video_recordings WHERE id = $1 AND call_id = $2 AND tenant_id = $3`, [
      recordingId,
      callId,
      principal.clientId,
    ])) as RecordingRow[];
    if (!row) throw AppException.notFound();
    return row;
  }

  /**
   * One chunk, in order: index n is taken only after 0…n-1. The same index with the same bytes
   * again (a retried upload) is acknowledged as a duplicate; different bytes are refused.
   */
  async chunk(principal: Principal, callId: string, recordingId: string, index: number, bytes: Buffer): Promise<VideoChunkAck> {
    const recording = await this.ownRecording(principal, callId, recordingId);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const [existing] = (await this.dataSource.query(`SELECT sha256 FROM video_recording_chunks WHERE recording_id = $1 AND index = $2`, [
      recordingId,
      index,
    ])) as { sha256: string }[];
    const decision = chunkDecision(existing?.sha256 ?? null, sha256, recording, index);
    if (decision === 'duplicate' || decision === 'mismatch') return this.duplicateChunk(recording, index, existing!.sha256, sha256);
    if (decision === 'closed') {
      throw new AppException('conflict', {
        message: 'This recording is closed: no more chunks are taken',
        data: { reason: 'recording_closed' },
      });
    }
    if (decision === 'out_of_order') {
      throw new AppException('conflict', {
        message: `Chunk ${index} is out of order: chunk ${recording.chunks} is expected next`,
        data: { reason: 'out_of_order', expected: recording.chunks },
      });
    }
    const upload = await this.store.create(recording.tenant_id, 'video-chunk', { contentType: 'application/octet-stream' });
    await new Promise<void>((resolve, reject) => {
      upload.stream.once('error', reject);
      upload.stream.end(bytes, () => resolve());
    });
    try {
      const taken = await this.dataSource.transaction(async (manager) => {
        await manager.query(
          `INSERT INTO video_recording_chunks (recording_id, index, tenant_id, file_id, byte_size, sha256) VALUES ($1, $2, $3, $4, $5, $6)`,
          [recordingId, index, recording.tenant_id, upload.id, bytes.length, sha256],
        );
        const rows = returned<{ id: string }>(
          await manager.query(
            `UPDATE video_recordings SET chunks = chunks + 1, byte_size = byte_size + $3
             WHERE id = $1 AND chunks = $2 AND status = 'recording' RETURNING id`,
            [recordingId, index, bytes.length],
          ),
        );
        if (rows.length === 0)
          throw new AppException('conflict', { message: 'This recording moved on meanwhile', data: { reason: 'recording_closed' } });
        return true;
      });
      if (taken) return { recordingId, index, nextIndex: index + 1, duplicate: false };
    } catch (error) {
      await this.store.remove(upload.id);
      const [raced] = (await this.dataSource.query(`SELECT sha256 FROM video_recording_chunks WHERE recording_id = $1 AND index = $2`, [
        recordingId,
        index,
      ])) as { sha256: string }[];
      if (raced) return this.duplicateChunk(recording, index, raced.sha256, sha256);
      throw error;
    }
    throw AppException.notFound();
  }

  private async duplicateChunk(recording: RecordingRow, index: number, stored: string, given: string): Promise<VideoChunkAck> {
    if (stored !== given) {
      throw new AppException('conflict', {
        message: `Chunk ${index} was already stored with different bytes`,
        data: { reason: 'chunk_mismatch' },
      });
    }
    const [row] = (await this.dataSource.query(`SELECT chunks FROM video_recordings WHERE id = $1`, [recording.id])) as {
      chunks: number;
    }[];
    return { recordingId: recording.id, index, nextIndex: row?.chunks ?? index + 1, duplicate: true };
  }

  /** The agent stopped recording: the worker finalises it now (idempotent: a second stop changes nothing). */
  async stopRecording(principal: Principal, callId: string, recordingId: string): Promise<VideoRecordingView> {
    const recording = await this.ownRecording(principal, callId, recordingId);
    await this.queueFinalise([recording.id], recording.tenant_id, 0, true);
    const [row] = (await this.dataSource.query(`SELECT * FROM video_recordings WHERE id = $1`, [recordingId])) as RecordingRow[];
    return this.recordingView(row!);
  }

  private async stopRecordings(callId: string, delayMs: number): Promise<void> {
    const rows = (await this.dataSource.query(`SELECT id, tenant_id FROM video_recordings WHERE call_id = $1 AND status = 'recording'`, [
      callId,
    ])) as { id: string; tenant_id: string }[];
    if (rows.length)
      await this.queueFinalise(
        rows.map((row) => row.id),
        rows[0]!.tenant_id,
        delayMs,
        delayMs === 0,
      );
  }

  /**
   * The finalise job, written to the outbox with the state change (committed, it reaches the worker
   * even if this process dies). With `close` the recording stops taking chunks now; without, late
   * chunks are still taken until the worker starts (it closes the recording itself).
   */
  private async queueFinalise(ids: string[], tenantId: string, delayMs: number, close: boolean): Promise<void> {
    await this.host.transaction(async (manager, outbox) => {
      if (close) {
        await manager.query(
          `UPDATE video_recordings SET status = 'finalising', stopped_at = now() WHERE id = ANY($1) AND status = 'recording'`,
          [ids],
        );
      }
      const effects: OutboxEffect[] = ids.map((recordingId) =>
        jobEffect(
          outboxJob(
            QUEUES.videoRecording,
            { name: 'finalise', data: { tenantId, recordingId } },
            { jobId: `video-recording.${recordingId}${delayMs ? '.late' : ''}`, ...(delayMs ? { delayMs } : {}) },
          ),
        ),
      );
      outbox.push(...(await writeOutbox(manager, effects)));
    });
  }

  recordingView(row: RecordingRow): VideoRecordingView {
    return {
      id: row.id,
      callId: row.call_id,
      status: row.status,
      durationMs: row.duration_ms,
      format: row.format,
      byteSize: Number(row.byte_size),
      createdAt: iso(row.created_at)!,
      url: row.status === 'ready' ? this.urls.url(row.tenant_id, row.id, Math.floor(Date.now() / 1000)) : null,
    };
  }

  /** A conversation's recordings, for whoever may see the conversation (the desk), newest first. */
  async recordings(principal: Principal, conversationId: string): Promise<VideoRecordingView[]> {
    await this.desk.visible(principal, conversationId);
    return this.recordingsOf(principal.clientId, conversationId);
  }

  /** The recordings of a conversation already checked as visible (the case transcript). */
  async recordingsOf(tenantId: string, conversationId: string): Promise<VideoRecordingView[]> {
    const rows = (await this.dataSource.query(
      `SELECT * FROM video_recordings WHERE conversation_id = $1 AND tenant_id = $2 ORDER BY created_at DESC`,
      [conversationId, tenantId],
    )) as RecordingRow[];
    return rows.map((row) => this.recordingView(row));
  }

  /** The bytes of a ready recording, for a signed URL (RecordingUrlSigner) that still holds. */
  async content(
    recordingId: string,
    query: { t?: unknown; e?: unknown; s?: unknown },
  ): Promise<{ stream: Readable; byteSize: number; format: string }> {
    const tenantId = typeof query.t === 'string' ? query.t : '';
    const expires = Number(query.e);
    const signature = typeof query.s === 'string' ? query.s : '';
    if (!this.urls.verify(tenantId, recordingId, expires, signature, Math.floor(Date.now() / 1000))) throw AppException.notFound();
    const [row] = (await this.dataSource.query(
      `SELECT file_id, format FROM video_recordings WHERE id = $1 AND tenant_id = $2 AND status = 'ready' AND file_id IS NOT NULL`,
      [recordingId, tenantId],
    )) as { file_id: string; format: string | null }[];
    if (!row) throw AppException.notFound();
    const file = await this.store.open(tenantId, row.file_id);
    if (!file) throw AppException.notFound();
    return { ...file, format: row.format ?? 'video/webm' };
  }

  // ---- helpers -----------------------------------------------------------------------------

  private async language(tenantId: string, manager: EntityManager = this.dataSource.manager): Promise<Language> {
    const [tenant] = (await manager.query(`SELECT language FROM clients WHERE id = $1`, [tenantId])) as { language: string }[];
    return (LANGUAGES as readonly string[]).includes(tenant?.language ?? '') ? (tenant!.language as Language) : 'es';
  }

  /**
   * A system message in the conversation's history (the call's start or end), pushed like any
   * message through the outbox of the same transaction. It stays in the console and the web chat:
   * a messaging customer is not sent a copy (they are in the call).
   */
  private async history(
    manager: EntityManager,
    conversation: ConversationRow,
    text: (texts: (typeof VIDEO_HISTORY)[Language]) => string,
  ): Promise<void> {
    const language = await this.language(conversation.tenant_id, manager);
    const [row] = (await manager.query(
      `INSERT INTO messages (conversation_id, tenant_id, sequence, sender_kind, sender_id, text)
       VALUES ($1, $2, (SELECT COALESCE(max(sequence), 0) + 1 FROM messages WHERE conversation_id = $1), 'system', NULL, $3)
       RETURNING *`,
      [conversation.id, conversation.tenant_id, text(VIDEO_HISTORY[language])],
    )) as MessageRow[];
    row!.attachments = [];
    const view = messageView(row!);
    const rooms = [roomName({ kind: 'conversation', id: conversation.id })];
    if (conversation.agent_id) rooms.push(roomName({ kind: 'agent', id: conversation.agent_id }));
    await writeOutbox(manager, [
      {
        topic: 'socket',
        payload: {
          emits: [
            { namespace: 'staff', rooms, event: 'message.created', data: view },
            { namespace: 'visitor', rooms: [rooms[0]!], event: 'message.created', data: view },
          ],
        },
      },
    ]);
  }

  /** Call events reach both parties at once (ephemeral: the call's state is always read back over HTTP). */
  push(callId: string, agentId: string, event: VideoCallEvent): void {
    emitEphemeral(this.realtime, {
      namespace: 'staff',
      rooms: [videoRoom(callId), roomName({ kind: 'agent', id: agentId })],
      event: 'video.call',
      data: event,
    });
    emitEphemeral(this.realtime, { namespace: 'visitor', rooms: [videoRoom(callId)], event: 'video.call', data: event });
  }

  /** Bytes of a chunk upload, read from the request with the size limit (413 beyond it). */
  static readonly maxChunkBytes = VIDEO_LIMITS.maxChunkBytes;
}
