import type { IvrTree } from '@centralita/contracts';
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

/**
 * An IVR: its draft tree (what the editor saves) and the published one (what telephony reads),
 * with a version number bumped by every apply.
 */
@Entity({ name: 'ivrs' })
export class Ivr {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_ivrs' })
  id!: string;

  @Index('ix_ivrs_client')
  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_ivrs_client' })
  client?: Client;

  @Column({ type: 'varchar', length: 160 })
  name!: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description!: string | null;

  @Column({ type: 'boolean', default: true })
  active!: boolean;

  @Column({ name: 'draft_tree', type: 'jsonb' })
  draftTree!: IvrTree;

  @Column({ name: 'published_tree', type: 'jsonb', nullable: true })
  publishedTree!: IvrTree | null;

  @Column({ name: 'published_version', type: 'integer', default: 0 })
  publishedVersion!: number;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
