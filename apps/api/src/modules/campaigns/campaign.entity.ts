import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  DeleteDateColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Client } from '../tenancy/client.entity';

/** A campaign agents log into. Deleting one is soft: conversations and users refer to it. */
@Entity({ name: 'campaigns' })
// Unique among live rows only: a deleted campaign's identifier can be used again.
@Index('uq_campaigns_client_identifier', ['clientId', 'identifier'], { unique: true, where: '"deleted_at" IS NULL' })
@Check('ck_campaigns_allowed_chats', '"allowed_chats_per_agent" BETWEEN 1 AND 5')
@Check('ck_campaigns_dates', '"to_date" >= "from_date"')
@Check('ck_campaigns_identifier_length', 'char_length("identifier") <= 20')
export class Campaign {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_campaigns' })
  id!: string;

  @Index('ix_campaigns_client')
  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_campaigns_client' })
  client?: Client;

  @Column({ type: 'varchar', length: 160 })
  name!: string;

  @Column({ type: 'varchar', length: 500 })
  description!: string;

  @Column({ name: 'from_date', type: 'date' })
  fromDate!: string;

  @Column({ name: 'to_date', type: 'date' })
  toDate!: string;

  @Column({ type: 'varchar', length: 40 })
  identifier!: string;

  @Column({ name: 'allowed_chats_per_agent', type: 'smallint' })
  allowedChatsPerAgent!: number;

  /** Campaigns created from this one copy its settings. */
  @Column({ name: 'template_campaign', type: 'boolean', default: false })
  templateCampaign!: boolean;

  @Column({ type: 'varchar', length: 160, nullable: true })
  customer!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
