import 'reflect-metadata';
import { Logger, type INestApplicationContext, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { logLevelsFor } from '@centralita/contracts/server';
import { loadWorkerConfig, type WorkerConfig } from './config/worker-config';
import { WorkerModule } from './worker.module';

export interface CreateWorkerOptions {
  config?: Partial<WorkerConfig>;
  env?: NodeJS.ProcessEnv;
  logger?: LoggerService | LogLevel[] | false;
}

/** The worker: a Nest application context (no HTTP) whose BullMQ processors start on init. */
export async function createWorker(options: CreateWorkerOptions = {}): Promise<INestApplicationContext> {
  const config = loadWorkerConfig(options.env ?? process.env, options.config);
  const logger = options.logger ?? logLevelsFor((options.env ?? process.env).LOG_LEVEL, config.nodeEnv);
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
    abortOnError: false,
    ...(logger !== undefined ? { logger } : {}),
  });
  await app.init();
  return app;
}

async function main(): Promise<void> {
  const app = await createWorker();
  // SIGTERM/SIGINT: BullMQ workers finish their active jobs, then connections close.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  new Logger('Worker').log('Centralita worker started (queues: mail)');
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
