import 'reflect-metadata';
import { Logger, RequestMethod, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { REFRESH_TOKEN_HEADER } from '@centralita/contracts';
import { logLevelsFor } from '@centralita/contracts/server';
import { AppModule } from './app.module';
import { EnvelopeExpressAdapter } from './common/envelope-adapter';
import { configureHttp } from './common/http-setup';
import { indexApiRoutes } from './common/route-index';
import { APP_CONFIG, loadConfig, type AppConfig, type ConfigOverrides } from './config/app-config';

export interface CreateAppOptions {
  /** Applied over the environment (tests: rate limits, proxy trust...). */
  config?: ConfigOverrides;
  env?: NodeJS.ProcessEnv;
  logger?: LoggerService | LogLevel[] | false;
}

function setupSwagger(app: NestExpressApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Centralita API')
      .setDescription(
        'Every answer is an envelope {statusCode, data, errorMessage, errorCode?}. Authenticated calls send `Authorization: Bearer <accessToken>`. ' +
          `Session/* routes sit at the root (no /api prefix); refresh tokens travel in the ${REFRESH_TOKEN_HEADER} header or the JSON body.`,
      )
      .setVersion('0.1.0')
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
      .build(),
  );
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json', customSiteTitle: 'Centralita API' });
}

/** The configured, initialised application, not yet listening: main() listens on PORT, tests on port 0. */
export async function createApp(options: CreateAppOptions = {}): Promise<NestExpressApplication> {
  const config = loadConfig(options.env ?? process.env, options.config);
  const logger = options.logger ?? logLevelsFor((options.env ?? process.env).LOG_LEVEL, config.nodeEnv);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), new EnvelopeExpressAdapter(), {
    bodyParser: false,
    abortOnError: false,
    ...(logger !== undefined ? { logger } : {}),
  });
  configureHttp(app, config);
  app.setGlobalPrefix('api', { exclude: [{ path: 'Session/{*path}', method: RequestMethod.ALL }] });
  setupSwagger(app);
  // Routes are registered by init: only then can they be indexed (see indexApiRoutes).
  await app.init();
  indexApiRoutes(app.getHttpAdapter().getInstance());
  return app;
}

async function main(): Promise<void> {
  const app = await createApp();
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  const config = app.get<AppConfig>(APP_CONFIG);
  const logger = new Logger('Bootstrap');
  if (config.jwt.ephemeral) logger.warn('JWT_SECRET is not set: using a random secret, so sessions end whenever the API restarts');
  if (config.host) await app.listen(config.port, config.host);
  else await app.listen(config.port);
  logger.log(`Centralita API listening on ${await app.getUrl()} (docs at /api/docs)`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
