import {
  Column,
  CreateDateColumn,
  DeleteDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Client } from '../tenancy/client.entity';

/** A SIP trunk; `passwordEncrypted` holds an AES-256-GCM ciphertext only (see ConfigCrypto). */
@Entity({ name: 'trunks' })
export class Trunk {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_trunks' })
  id!: string;

  @Index('ix_trunks_client')
  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_trunks_client' })
  client?: Client;

  @Column({ type: 'varchar', length: 160 })
  name!: string;

  @Column({ type: 'varchar', length: 253 })
  host!: string;

  @Column({ type: 'integer', default: 5060 })
  port!: number;

  @Column({ type: 'varchar', length: 8 })
  transport!: string;

  @Column({ type: 'varchar', length: 128, nullable: true })
  username!: string | null;

  @Column({ name: 'password_encrypted', type: 'text', nullable: true })
  passwordEncrypted!: string | null;

  @Column({ name: 'caller_id', type: 'varchar', length: 16, nullable: true })
  callerId!: string | null;

  /** Country calling code of the trunk's numbers ("44"): national-format called numbers are read with it. */
  @Column({ name: 'country_code', type: 'varchar', length: 3, nullable: true })
  countryCode!: string | null;

  /** National trunk prefix the carrier writes before national numbers ("0"); null where the country has none. */
  @Column({ name: 'national_prefix', type: 'varchar', length: 2, nullable: true })
  nationalPrefix!: string | null;

  /** Carrier source check: addresses / CIDR networks the trunk's INVITEs may come from; empty = the trunk's host only. */
  @Column({ name: 'allowed_sources', type: 'text', array: true, default: () => "'{}'" })
  allowedSources!: string[];

  @Column({ name: 'max_concurrent_calls', type: 'integer' })
  maxConcurrentCalls!: number;

  @Column({ type: 'boolean', default: true })
  active!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
