import { checkFileStoreAtStartup, createFileStore, describeFileStore, FileStoreError, type FileStore } from '@centralita/contracts/server';
import { Logger, Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

/**
 * The shared file store: every API and worker process reads the same files. PostgreSQL large
 * objects by default, an S3-compatible bucket with FILE_STORE=s3 (the worker builds it with the
 * same factory from the same settings). Files written before a switch stay readable: each file's
 * row names its driver.
 */
export const FILE_STORE = Symbol('FILE_STORE');

const logger = new Logger('FileStore');

/**
 * A bucket that refuses us (credentials, permissions) or cannot be reached is the platform's
 * problem, not the caller's: 503 with a plain message, the detail (naming the setting) in the log.
 */
export function fileStoreFailure(error: unknown): unknown {
  if (!(error instanceof FileStoreError) || error.kind === 'not_found') return error;
  logger.error(error.message);
  return new AppException('service_unavailable', {
    message: 'The file store is not available at the moment; try again later',
    headers: { 'Retry-After': '5' },
  });
}

@Module({
  providers: [
    {
      provide: FILE_STORE,
      inject: [getDataSourceToken(), APP_CONFIG],
      useFactory: async (db: DataSource, config: AppConfig): Promise<FileStore> => {
        // Wrong credentials, bucket or region stop the start with the setting named, not every upload later.
        await checkFileStoreAtStartup(config.fileStore, (message) => logger.warn(message));
        if (config.fileStore.driver === 's3') logger.log(`files are stored in ${describeFileStore(config.fileStore)}`);
        return createFileStore(config.fileStore, (text, values) => db.query(text, values), { translateError: fileStoreFailure });
      },
    },
  ],
  exports: [FILE_STORE],
})
export class FilesModule {}
