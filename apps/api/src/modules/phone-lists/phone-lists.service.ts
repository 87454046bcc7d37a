import {
  DEFAULT_LANGUAGE,
  LIMITS,
  PHONE_IMPORT_LIMITS,
  QUEUES,
  type Language,
  type Page,
  type PagedQuery,
  type PhoneImportState,
  type PhoneImportStatus,
  type PhoneListEntry,
  type PhoneListImportJob,
  type PhoneListSummary,
} from '@centralita/contracts';
import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import type { DataSource, Repository } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { paginate } from '../admin/paginate';
import { assertRules } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { importErrorCsv } from './import-error-file';
import { PhoneList, PhoneListEntryRow, PhoneListImport } from './phone-list.entities';

function toImportState(row: PhoneListImport): PhoneImportState {
  return {
    id: row.id,
    listName: row.listName,
    fileName: row.fileName,
    status: row.status as PhoneImportStatus,
    progress: row.progress,
    totalRows: row.totalRows,
    importedRows: row.importedRows,
    errorRows: row.errorRows,
    failure: row.failure,
    failureCode: row.failureCode,
    phoneListId: row.phoneListId,
    createdAt: row.createdAt.toISOString(),
  };
}

@Injectable()
export class PhoneListsService {
  constructor(
    @InjectRepository(PhoneList) private readonly lists: Repository<PhoneList>,
    @InjectRepository(PhoneListImport) private readonly imports: Repository<PhoneListImport>,
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectQueue(QUEUES.phoneListImport) private readonly queue: Queue<PhoneListImportJob>,
    private readonly audit: AuditService,
  ) {}

  list(clientId: string, query: PagedQuery): Promise<Page<PhoneListSummary>> {
    const qb = this.lists.createQueryBuilder('l').where('l.client_id = :clientId', { clientId });
    return paginate(
      qb,
      query,
      {
        sortable: { name: 'l.name', entryCount: 'l.entry_count', createdAt: 'l.created_at' },
        searchable: ['l.name'],
        defaultSort: { field: 'createdAt', order: 'desc' },
      },
      (l) => ({ id: l.id, name: l.name, entryCount: l.entryCount, createdAt: l.createdAt.toISOString() }),
    );
  }

  async get(clientId: string, id: string): Promise<PhoneListSummary> {
    const l = await this.find(clientId, id);
    return { id: l.id, name: l.name, entryCount: l.entryCount, createdAt: l.createdAt.toISOString() };
  }

  async entries(clientId: string, id: string, query: PagedQuery): Promise<Page<PhoneListEntry>> {
    await this.find(clientId, id);
    const qb = this.dataSource
      .getRepository(PhoneListEntryRow)
      .createQueryBuilder('e')
      .where('e.client_id = :clientId AND e.list_id = :id', { clientId, id });
    return paginate(
      qb,
      query,
      {
        sortable: { phone: 'e.phone', name: 'e.name', line: 'e.line' },
        searchable: ['e.phone', 'e.name'],
        defaultSort: { field: 'line', order: 'asc' },
      },
      (e) => ({ id: e.id, phone: e.phone, name: e.name, line: e.line }),
    );
  }

  async remove(principal: Principal, id: string): Promise<{ deleted: true }> {
    const l = await this.find(principal.clientId, id);
    await this.dataSource.transaction(async (manager) => {
      await manager.softDelete(PhoneList, { id, clientId: principal.clientId });
      await this.audit.record(
        principal,
        { entityType: 'phone-list', entityId: id, action: 'delete', before: { name: l.name, entryCount: l.entryCount }, after: null },
        manager,
      );
    });
    return { deleted: true };
  }

  /** Stores the upload and queues it; the worker parses, validates and imports it (all or nothing). */
  async startImport(
    principal: Principal,
    meta: { name: string; fileName: string; defaultCountry?: string },
    file: Buffer,
  ): Promise<PhoneImportState> {
    const name = meta.name.trim();
    if (!name) assertRules([{ field: 'name', key: 'required' }]);
    if (name.length > 160) assertRules([{ field: 'name', key: 'maxLength', values: { count: 160 } }]);
    if (file.length === 0) assertRules([{ field: 'file', key: 'required' }]);
    const row = await this.imports.save(
      this.imports.create({
        clientId: principal.clientId,
        createdBy: principal.userId,
        listName: name,
        fileName: meta.fileName.slice(0, 255) || 'upload',
        defaultCountry: meta.defaultCountry?.toUpperCase() ?? null,
        file,
      }),
    );
    await this.queue.add(
      'import',
      { importId: row.id },
      { jobId: row.id, attempts: 3, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: 1000 },
    );
    await this.audit.record(principal, {
      entityType: 'phone-list-import',
      entityId: row.id,
      action: 'create',
      before: null,
      after: { listName: name, fileName: row.fileName, bytes: file.length },
    });
    return toImportState(row);
  }

  async importState(clientId: string, id: string): Promise<PhoneImportState> {
    return toImportState(await this.findImport(clientId, id));
  }

  /** The line-by-line problems as CSV in `language`, the requester's (cells neutralised so a spreadsheet never runs them). */
  async errorFile(clientId: string, id: string, language: Language = DEFAULT_LANGUAGE): Promise<string> {
    const row = await this.findImport(clientId, id);
    return importErrorCsv({ errors: row.errors, failure: row.failure, failureCode: row.failureCode }, language);
  }

  private async find(clientId: string, id: string): Promise<PhoneList> {
    const l = await this.lists.findOne({ where: { id, clientId } });
    if (!l) throw AppException.notFound();
    return l;
  }

  private async findImport(clientId: string, id: string): Promise<PhoneListImport> {
    const row = await this.imports.findOne({ where: { id, clientId } });
    if (!row) throw AppException.notFound();
    return row;
  }
}

export const MIN_PHONE_DIGITS = LIMITS.minPhoneDigits;
export const MAX_UPLOAD_BYTES = PHONE_IMPORT_LIMITS.maxFileBytes;
