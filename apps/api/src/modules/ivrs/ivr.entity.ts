import type { IvrTree, Language } from '@centralita/contracts';
import {
  Check,
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
@Check('ck_ivrs_language', `"language" IN ('es', 'en', 'el', 'it', 'sr', 'de', 'ru')`)
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

  /** Language the text prompts are spoken in (espeak-ng voice at publish). */
  @Column({ type: 'varchar', length: 2, default: 'es' })
  language!: Language;

  /** The draft as it was published (the published tree adds the rendered prompts' file ids). */
  @Column({ name: 'published_source_tree', type: 'jsonb', nullable: true })
  publishedSourceTree!: IvrTree | null;

  @Column({ name: 'published_language', type: 'varchar', length: 2, nullable: true })
  publishedLanguage!: Language | null;

  /** Whether the last publish rendered every text prompt; null when none needed it or nothing is published. */
  @Column({ name: 'prompts_rendered', type: 'boolean', nullable: true })
  promptsRendered!: boolean | null;

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
