import { extname } from 'node:path';
import { IVR_PROMPT_UPLOAD, type IvrIssue, type IvrTree, type Language } from '@centralita/contracts';
import { createHash } from 'node:crypto';
import { ivrPromptCacheKey, OutgoingAddressPolicy, voiceLineClosedText, type FileStore } from '@centralita/contracts/server';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { FILE_STORE, fileStoreFailure } from '../files/files.module';
import { AudioToolError, convertRecording, hasTool, isTelephonyWav, readWavInfo, renderSpeech } from './prompt-audio';
import { fetchPromptAudio, PromptUrlError } from './prompt-url';

/** stored_files.kind of every IVR prompt (rendered or uploaded). */
export const IVR_PROMPT_FILE_KIND = 'ivr-prompt';

/** Whether espeak-ng and sox are installed, looked up once per publish (null: not yet). */
interface ToolCheck {
  ok: boolean | null;
}

const treeReachesLine = (tree: IvrTree): boolean =>
  tree.nodes.some((node) => [node.fallback, ...node.options.map((option) => option.destination)].some((d) => d.type === 'line'));

export interface UploadedAudio {
  buffer: Buffer;
  originalname: string;
  size: number;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The IVRs' prompt audio in the shared file store: text rendered at publish (cached by language and
 * text per tenant) and recordings administrators upload, all as 8 kHz mono 16-bit PCM WAV.
 */
@Injectable()
export class IvrPromptsService {
  private readonly logger = new Logger(IvrPromptsService.name);

  constructor(
    @Inject(FILE_STORE) private readonly files: FileStore,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outgoing: OutgoingAddressPolicy,
  ) {}

  /**
   * The published form of a draft: every node with text and no uploaded recording gets the file id
   * of its rendered speech. `rendered` is null when no node needed speech, false when espeak-ng or
   * sox is missing (or one prompt failed): those nodes keep a null promptAudioFileId.
   */
  async renderTree(clientId: string, language: Language, draft: IvrTree): Promise<{ tree: IvrTree; rendered: boolean | null }> {
    const tree: IvrTree = structuredClone(draft);
    const tools: ToolCheck = { ok: null };
    let urlsFetched = true;
    // An audio URL is downloaded and converted now (the voice server plays stored files only); a node whose URL
    // fails keeps its text (spoken instead) or, with none, plays the voice server's tone.
    for (const node of tree.nodes.filter((candidate) => !candidate.promptAudioFileId && candidate.promptAudioUrl)) {
      node.promptAudioFileId = await this.fetchUrl(clientId, language, node.promptAudioUrl!, node.id);
      if (!node.promptAudioFileId && !node.promptText) urlsFetched = false;
    }
    const needing = tree.nodes.filter((node) => !node.promptAudioFileId && node.promptText);
    // A tree that sends callers to a line also needs what they hear when that line is closed (its business hours):
    // rendered now in the IVR's language and found by the voice server under the same cache key. Best effort: a
    // missing tool leaves the voice server's tone, and says nothing about the tree's own prompts.
    if (treeReachesLine(tree)) {
      const offHours = await this.offHoursMessage(clientId);
      await this.renderText(clientId, language, voiceLineClosedText(language, offHours), tools, 'closed line');
    }
    if (!needing.length) return { tree, rendered: urlsFetched ? null : false };
    let rendered = urlsFetched;
    for (const node of needing) {
      node.promptAudioFileId = await this.renderText(clientId, language, node.promptText!, tools, `IVR prompt "${node.id}"`);
      if (!node.promptAudioFileId) rendered = false;
    }
    return { tree, rendered };
  }

  /** The file id of `text` spoken in `language` (cached per tenant, language and text), or null when espeak-ng or sox fails. */
  private async renderText(clientId: string, language: Language, text: string, tools: ToolCheck, what: string): Promise<string | null> {
    const key = ivrPromptCacheKey(language, text);
    const cached = await this.cached(clientId, key);
    if (cached) return cached;
    tools.ok ??= (await hasTool('espeak-ng')) && (await hasTool('sox'));
    if (!tools.ok) return null;
    try {
      return await this.keep(clientId, key, language, await renderSpeech(text, language));
    } catch (error) {
      if (error instanceof AudioToolError) {
        this.logger.warn(`${what} not rendered: ${error.message}`);
        return null;
      }
      throw fileStoreFailure(error);
    }
  }

  /**
   * The stored prompt of a node's audio URL, or null when it cannot be fetched or converted (logged). Cached by the
   * downloaded bytes: the same audio is stored once, a file changed behind the same URL is converted again.
   */
  private async fetchUrl(clientId: string, language: Language, url: string, nodeId: string): Promise<string | null> {
    if (url.startsWith('/')) {
      this.logger.warn(`IVR prompt "${nodeId}": ${url} is a path, not an http(s) URL: not fetched`);
      return null;
    }
    try {
      const { bytes, extension } = await fetchPromptAudio(url, this.outgoing);
      const key = createHash('sha256')
        .update(`url-audio v1\n${createHash('sha256').update(bytes).digest('hex')}`)
        .digest('hex');
      const cached = await this.cached(clientId, key);
      if (cached) return cached;
      const info = extension === 'wav' ? readWavInfo(bytes) : null;
      const audio = isTelephonyWav(info) ? bytes : (await hasTool('sox')) ? await convertRecording(bytes, extension) : null;
      if (!audio) throw new PromptUrlError('sox is not installed to convert it');
      const converted = readWavInfo(audio);
      if (!isTelephonyWav(converted) || converted!.dataBytes === 0) throw new PromptUrlError('it holds no audio');
      return await this.keep(clientId, key, language, audio);
    } catch (error) {
      if (error instanceof PromptUrlError || error instanceof AudioToolError) {
        this.logger.warn(`IVR prompt "${nodeId}": audio URL not used: ${error.message}`);
        return null;
      }
      throw fileStoreFailure(error);
    }
  }

  /** Stores `audio` under the cache key; a concurrent publish that stored the same key first wins (ours is dropped). */
  private async keep(clientId: string, key: string, language: Language, audio: Buffer): Promise<string> {
    const fileId = await this.store(clientId, audio);
    const [row] = await this.dataSource.query(
      `INSERT INTO ivr_prompt_audio (client_id, cache_key, language, file_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (client_id, cache_key) DO UPDATE SET cache_key = EXCLUDED.cache_key RETURNING file_id`,
      [clientId, key, language, fileId],
    );
    if (row.file_id !== fileId) await this.files.remove(fileId);
    return String(row.file_id);
  }

  /** The tenant's off-hours message (platform settings; '' when never written). */
  private async offHoursMessage(clientId: string): Promise<string> {
    const [row] = (await this.dataSource.query(`SELECT settings->>'offHoursMessage' AS text FROM platform_settings WHERE client_id = $1`, [
      clientId,
    ])) as { text: string | null }[];
    return (row?.text ?? '').trim();
  }

  /** Stores an uploaded recording (wav, mp3, ogg; size-limited) converted to telephony WAV; 400 naming the file otherwise. */
  async upload(clientId: string, file: UploadedAudio | undefined): Promise<{ fileId: string; seconds: number }> {
    if (!file || !file.buffer?.length) throw fieldError('file', 'file is required: send one audio file in the multipart field "file"');
    const name = file.originalname || 'file';
    const extension = extname(name).slice(1).toLowerCase();
    if (!(IVR_PROMPT_UPLOAD.extensions as readonly string[]).includes(extension))
      throw fieldError('file', `${name} is not a wav, mp3 or ogg file`);
    if (file.size > IVR_PROMPT_UPLOAD.maxBytes)
      throw fieldError('file', `${name} is larger than ${IVR_PROMPT_UPLOAD.maxBytes / (1024 * 1024)} MB`);
    let audio: Buffer;
    const info = extension === 'wav' ? readWavInfo(file.buffer) : null;
    if (isTelephonyWav(info) && info!.dataBytes / 16000 <= IVR_PROMPT_UPLOAD.maxSeconds) {
      audio = file.buffer;
    } else if (!(await hasTool('sox'))) {
      throw new AppException('service_unavailable', {
        message: `${name} needs converting and sox is not installed on the server: upload an 8 kHz mono 16-bit WAV, or install sox`,
        data: { fields: { file: ['sox is not installed on the server'] } },
      });
    } else {
      try {
        audio = await convertRecording(file.buffer, extension);
      } catch (error) {
        if (error instanceof AudioToolError) throw fieldError('file', `${name} could not be read as ${extension} audio`);
        throw error;
      }
    }
    const converted = readWavInfo(audio);
    if (!isTelephonyWav(converted) || converted!.dataBytes === 0) throw fieldError('file', `${name} holds no audio`);
    const fileId = await this.store(clientId, audio);
    return { fileId, seconds: Math.round((converted!.dataBytes / 16000) * 10) / 10 };
  }

  /** Issues for prompt files a tree names that are not this tenant's prompt audio. */
  async fileIssues(clientId: string, tree: IvrTree): Promise<IvrIssue[]> {
    const named = tree.nodes
      .map((node, index) => ({ id: node.promptAudioFileId, field: `tree.nodes.${index}.promptAudioFileId` }))
      .filter((n): n is { id: string; field: string } => !!n.id);
    if (!named.length) return [];
    const valid = named.filter((n) => uuid.test(n.id)).map((n) => n.id);
    const rows: { id: string }[] = valid.length
      ? await this.dataSource.query(
          `SELECT id FROM stored_files WHERE tenant_id = $1 AND kind = $2 AND completed_at IS NOT NULL AND id = ANY($3::uuid[])`,
          [clientId, IVR_PROMPT_FILE_KIND, valid],
        )
      : [];
    const found = new Set(rows.map((r) => r.id));
    return named.filter((n) => !found.has(n.id)).map((n) => ({ field: n.field, key: 'notFound', values: { type: 'audio' } }));
  }

  /** The tenant's prompt file as a stream (the console's preview), or 404. */
  async open(clientId: string, fileId: string) {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM stored_files WHERE id = $1 AND tenant_id = $2 AND kind = $3`,
      [fileId, clientId, IVR_PROMPT_FILE_KIND],
    );
    const file = rows.length ? await this.files.open(clientId, fileId).catch((e: unknown) => Promise.reject(fileStoreFailure(e))) : null;
    if (!file) throw AppException.notFound();
    return file;
  }

  private async cached(clientId: string, key: string): Promise<string | null> {
    const rows: { file_id: string }[] = await this.dataSource.query(
      `SELECT p.file_id FROM ivr_prompt_audio p JOIN stored_files f ON f.id = p.file_id AND f.completed_at IS NOT NULL
        WHERE p.client_id = $1 AND p.cache_key = $2`,
      [clientId, key],
    );
    return rows[0] ? String(rows[0].file_id) : null;
  }

  private async store(clientId: string, audio: Buffer): Promise<string> {
    try {
      const upload = await this.files.create(clientId, IVR_PROMPT_FILE_KIND, { contentType: 'audio/wav' });
      await new Promise<void>((resolve, reject) => {
        upload.stream.once('error', reject);
        upload.stream.end(audio, () => resolve());
      });
      return upload.id;
    } catch (error) {
      throw fileStoreFailure(error);
    }
  }
}

function fieldError(field: string, message: string): AppException {
  return new AppException('validation', { message, data: { fields: { [field]: [message] } } });
}
