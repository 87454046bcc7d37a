import { QUEUES, type VoiceCallEvent, type VoiceCommand } from '@centralita/contracts';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../../src/config/app-config';
import { startTestApp, type TestApp } from '../../support/test-app';

export interface VoiceTestApp {
  t: TestApp;
  /** The real `voice-call-events` queue the API consumes: post events as the worker's voice server does. */
  events: Queue<VoiceCallEvent>;
  /** The `voice-commands` queue the API writes (connect, release, hangUp…) for the worker. */
  commands: Queue<VoiceCommand>;
  config: AppConfig;
  close(): Promise<void>;
}

/**
 * An API on its own queue prefix with calls connectable (VOICE_CONNECT_ENABLED on) and no outbox
 * poller (other suites' rows are not ours), for suites that play the worker's part on the voice
 * queues; `afterCallWorkSeconds` is the host's after-call-work timer for this app.
 */
export async function startVoiceTestApp(
  name: string,
  options: { afterCallWorkSeconds: number; accessTtlSeconds?: number },
): Promise<VoiceTestApp> {
  const prefix = `${process.env.QUEUE_PREFIX ?? 'centralita'}-${name}-${process.pid}`;
  const saved = { OUTBOX_POLL_MS: process.env.OUTBOX_POLL_MS, AFTER_CALL_WORK_SECONDS: process.env.AFTER_CALL_WORK_SECONDS };
  process.env.OUTBOX_POLL_MS = '3600000';
  process.env.AFTER_CALL_WORK_SECONDS = String(options.afterCallWorkSeconds);
  let t: TestApp;
  try {
    t = await startTestApp({
      queuePrefix: prefix,
      ...(options.accessTtlSeconds ? { jwt: { accessTtlSeconds: options.accessTtlSeconds } } : {}),
    });
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  const events = new Queue<VoiceCallEvent>(QUEUES.voiceCallEvents, { connection: redis, prefix });
  const commands = new Queue<VoiceCommand>(QUEUES.voiceCommands, { connection: redis, prefix });
  const config = t.app.get<AppConfig>(APP_CONFIG);
  config.voiceConnectEnabled = true;
  return {
    t,
    events,
    commands,
    config,
    async close() {
      config.voiceConnectEnabled = false;
      for (const queue of [events, commands]) {
        await queue.obliterate({ force: true }).catch(() => undefined);
        await queue.close();
      }
      redis.disconnect();
      await t.close();
    },
  };
}
