import { PostgresFileStore, type FileStore } from '@centralita/contracts/server';
import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

/** The shared file store (PostgreSQL large objects): every API and worker process reads the same files. */
export const FILE_STORE = Symbol('FILE_STORE');

@Module({
  providers: [
    {
      provide: FILE_STORE,
      inject: [getDataSourceToken()],
      useFactory: (db: DataSource): FileStore => new PostgresFileStore((text, values) => db.query(text, values)),
    },
  ],
  exports: [FILE_STORE],
})
export class FilesModule {}
