import path from 'node:path';
import { QUEUES, type VoiceCommand } from '@centralita/contracts';
import { createFileStore } from '@centralita/contracts/server';
import { BullModule, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, Module, type DynamicModule, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { WORKER_CONFIG, type WorkerConfig } from '../config/worker-config';
import { closedLine } from './business-hours';
import { loadVoiceSettings, QueueAnnouncements, queuePosition } from './queue-announcements';
import { CallRecordings, expireCallRecordings, loadRecordingPolicy } from './call-recording';
import { loadPublishedIvr, resolveInboundNumber } from './inbound-numbers';
import { PromptFiles } from './prompt-files';
import type { VoiceConfig } from './voice-config';
import { QueueVoiceEventSink } from './voice-events';
import { VoiceServer } from './voice-server';

export const VOICE_CONFIG = Symbol('VOICE_CONFIG');
export const VOICE_DB = Symbol('VOICE_DB');

/** Redis key (after the queue prefix) the voice server keeps alive while it runs: what "phone connected" can be read from. */
export const VOICE_STATUS_KEY = 'voice:status';
const STATUS_EVERY_MS = 5000;
/** How often recordings past their tenant's retention are deleted. */
const RECORDING_SWEEP_EVERY_MS = 3600_000;

/** Runs the VoiceServer for the worker's lifetime and keeps `<prefix>:voice:status` fresh (TTL 3× the beat). */
@Injectable()
export class VoiceService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('VoiceServer');
  readonly server: VoiceServer;
  private readonly sink: QueueVoiceEventSink;
  private readonly redis: Redis;
  private ready: Promise<unknown> | null = null;
  private beat: NodeJS.Timeout | null = null;
  private sweep: NodeJS.Timeout | null = null;
  private readonly expireRecordings: () => Promise<number>;

  constructor(
    @Inject(VOICE_CONFIG) private readonly voice: VoiceConfig,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
    @Inject(VOICE_DB) private readonly db: DataSource,
  ) {
    const query = async (sql: string, params: unknown[]) => {
      this.ready ??= this.db.initialize().catch((error: unknown) => {
        this.ready = null;
        throw error;
      });
      await this.ready;
      return this.db.query(sql, params);
    };
    const store = createFileStore(config.fileStore, (text, values) => query(text, values ?? []));
    const prompts = new PromptFiles(store);
    const log = { log: (message: string) => this.logger.log(message), warn: (message: string) => this.logger.warn(message) };
    this.expireRecordings = () => expireCallRecordings({ query }, store);
    // Rendered once per language and number, next to the generated tones.
    const announcements = new QueueAnnouncements(path.join(voice.mediaDir, 'queue-positions'), (message) => this.logger.warn(message));
    this.sink = new QueueVoiceEventSink({ redisUrl: config.redisUrl, queuePrefix: config.queuePrefix }, (message) =>
      this.logger.warn(message),
    );
    this.redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null, disconnectTimeout: 500, lazyConnect: true });
    this.redis.on('error', () => undefined);
    this.server = new VoiceServer(voice, {
      resolveNumber: (called) => resolveInboundNumber({ query }, called),
      loadIvr: (tenantId, ivrId) => loadPublishedIvr({ query }, tenantId, ivrId),
      promptFile: (tenantId, fileId) => prompts.path(tenantId, fileId),
      lineClosed: (tenantId, lineId, language) => closedLine({ query }, tenantId, lineId, language),
      voiceSettings: (tenantId) => loadVoiceSettings({ query }, tenantId),
      queuePosition: (tenantId, callId) => queuePosition({ query }, tenantId, callId),
      announcement: (language, position) => announcements.path(language, position),
      // VOICE_RECORDING_DIR unset: rtpengine records nothing, whatever the tenants' settings say.
      recordings: voice.recordingDir
        ? new CallRecordings(voice.recordingDir, voice.mediaDir, {
            policy: (tenantId) => loadRecordingPolicy({ query }, tenantId),
            store,
            log,
          })
        : null,
      events: this.sink,
      log: { log: (message) => this.logger.log(message), warn: (message) => this.logger.warn(message) },
    });
  }

  async onModuleInit(): Promise<void> {
    await this.server.start();
    const report = async () => {
      const status = {
        sip: `${this.voice.sipPublicHost}:${this.voice.sipPort}`,
        rtpengine: (await this.server.rtpengineUp()) ? 'up' : 'down',
        calls: this.server.activeCalls,
        at: new Date().toISOString(),
      };
      await this.redis.set(`${this.config.queuePrefix}:${VOICE_STATUS_KEY}`, JSON.stringify(status), 'PX', STATUS_EVERY_MS * 3);
    };
    await report().catch(() => undefined);
    this.beat = setInterval(() => void report().catch(() => undefined), STATUS_EVERY_MS);
    // Retention: every worker with voice on sweeps (a file already removed is no error), a batch at a time until done.
    const expire = async () => {
      let deleted = 0;
      for (let batch = await this.expireRecordings(); batch > 0; batch = await this.expireRecordings()) deleted += batch;
      if (deleted) this.logger.log(`${deleted} call recording(s) past their tenant's retention deleted`);
    };
    this.sweep = setInterval(
      () => void expire().catch((error: Error) => this.logger.warn(`recording retention: ${error.message}`)),
      RECORDING_SWEEP_EVERY_MS,
    );
    void expire().catch((error: Error) => this.logger.warn(`recording retention: ${error.message}`));
  }

  async onModuleDestroy(): Promise<void> {
    if (this.beat) clearInterval(this.beat);
    if (this.sweep) clearInterval(this.sweep);
    await this.server.stop();
    await this.sink.close();
    await this.redis.del(`${this.config.queuePrefix}:${VOICE_STATUS_KEY}`).catch(() => undefined);
    this.redis.disconnect();
    if (this.db.isInitialized) await this.db.destroy();
  }
}

const VOICE_COMMAND_TYPES = new Set<VoiceCommand['type']>(['hangUp', 'connect', 'release', 'monitor', 'monitor.mode', 'monitor.stop']);

/** QUEUES.voiceCommands: the API's hangUp, connect, release (transfer) and supervisor monitoring for a live call of this server. */
@Processor(QUEUES.voiceCommands, { concurrency: 4 })
export class VoiceCommandsProcessor extends WorkerHost {
  constructor(private readonly voice: VoiceService) {
    super();
  }

  async process(job: Job<VoiceCommand>): Promise<void> {
    const command = job.data;
    if (!command || !VOICE_COMMAND_TYPES.has(command.type) || typeof command.callId !== 'string')
      throw new UnrecoverableError(`voice command ${job.id} is not one of ${[...VOICE_COMMAND_TYPES].join(', ')}`);
    await this.voice.server.command(command);
  }
}

/**
 * Inbound voice (issue #22): registered by WorkerModule only when VOICE_SIP_PORT is set (loadVoiceConfig); without it
 * the worker runs as before and nothing listens for SIP.
 */
@Module({})
export class VoiceWorkerModule {
  static forRoot(config: WorkerConfig, voice: VoiceConfig): DynamicModule {
    return {
      module: VoiceWorkerModule,
      imports: [BullModule.registerQueue({ name: QUEUES.voiceCommands })],
      providers: [
        { provide: WORKER_CONFIG, useValue: config },
        { provide: VOICE_CONFIG, useValue: voice },
        {
          provide: VOICE_DB,
          // Its own small pool, opened on the first call: answering never waits behind an export.
          useFactory: () =>
            new DataSource({
              type: 'postgres',
              url: config.databaseUrl,
              synchronize: false,
              extra: { max: 2, application_name: 'centralita-voice' },
            }),
        },
        VoiceService,
        VoiceCommandsProcessor,
      ],
    };
  }
}
