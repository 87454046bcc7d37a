import type { PhoneImportFailureCode, PhoneRowErrorCode } from '@centralita/contracts';
import { Column, CreateDateColumn, DeleteDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Client } from '../tenancy/client.entity';

/** A list of phone numbers (outbound call lists) imported from a spreadsheet. */
@Entity({ name: 'phone_lists' })
export class PhoneList {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_phone_lists' })
  id!: string;

  @Index('ix_phone_lists_client')
  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_phone_lists_client' })
  client?: Client;

  @Column({ type: 'varchar', length: 160 })
  name!: string;

  @Column({ name: 'entry_count', type: 'integer', default: 0 })
  entryCount!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}

@Entity({ name: 'phone_list_entries' })
@Unique('uq_phone_list_entries_list_phone', ['listId', 'phone'])
export class PhoneListEntryRow {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_phone_list_entries' })
  id!: string;

  @Column({ name: 'list_id', type: 'uuid' })
  listId!: string;

  @ManyToOne(() => PhoneList, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'list_id', foreignKeyConstraintName: 'fk_phone_list_entries_list' })
  list?: PhoneList;

  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  /** E.164. */
  @Column({ type: 'varchar', length: 20 })
  phone!: string;

  @Column({ type: 'varchar', length: 160, nullable: true })
  name!: string | null;

  /** Line of the source file, for support questions. */
  @Column({ type: 'integer' })
  line!: number;

  /** The row's other columns by lower-cased header (email campaigns map them; migration 1763705600000). */
  @Column({ type: 'jsonb', nullable: true })
  fields!: Record<string, string> | null;
}

/** One spreadsheet upload: the file waits here for the worker, which fills status, progress and errors. */
@Entity({ name: 'phone_list_imports' })
export class PhoneListImport {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_phone_list_imports' })
  id!: string;

  @Index('ix_phone_list_imports_client')
  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_phone_list_imports_client' })
  client?: Client;

  @Column({ name: 'created_by', type: 'uuid', nullable: true })
  createdBy!: string | null;

  @Column({ name: 'list_name', type: 'varchar', length: 160 })
  listName!: string;

  @Column({ name: 'file_name', type: 'varchar', length: 255 })
  fileName!: string;

  @Column({ name: 'default_country', type: 'varchar', length: 2, nullable: true })
  defaultCountry!: string | null;

  @Column({ type: 'varchar', length: 10, default: 'queued' })
  status!: string;

  @Column({ type: 'smallint', default: 0 })
  progress!: number;

  @Column({ name: 'total_rows', type: 'integer', default: 0 })
  totalRows!: number;

  @Column({ name: 'imported_rows', type: 'integer', default: 0 })
  importedRows!: number;

  @Column({ name: 'error_rows', type: 'integer', default: 0 })
  errorRows!: number;

  /** Line-by-line problems: [{line, value, reason}]. */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  errors!: { line: number; value: string; reason: string; code?: PhoneRowErrorCode; first?: number }[];

  @Column({ type: 'varchar', length: 300, nullable: true })
  failure!: string | null;

  /** The refusal as a stable code (PHONE_IMPORT_FAILURE_CODES) the console translates. */
  @Column({ name: 'failure_code', type: 'varchar', length: 40, nullable: true })
  failureCode!: PhoneImportFailureCode | null;

  @Column({ name: 'phone_list_id', type: 'uuid', nullable: true })
  phoneListId!: string | null;

  /** The uploaded bytes, cleared once processed. */
  @Column({ type: 'bytea', nullable: true, select: false })
  file!: Buffer | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}
