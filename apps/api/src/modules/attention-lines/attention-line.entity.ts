import type { BusinessHoursWindow } from '@centralita/contracts';
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
import { Campaign } from '../campaigns/campaign.entity';
import { Client } from '../tenancy/client.entity';

/** A service (attention) line customers reach. Deleting one is soft: conversations refer to it. */
@Entity({ name: 'attention_lines' })
// Unique among live rows only: a deleted line's name can be used again.
@Index('uq_attention_lines_client_name', ['clientId', 'name'], { unique: true, where: '"deleted_at" IS NULL' })
export class AttentionLine {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_attention_lines' })
  id!: string;

  @Index('ix_attention_lines_client')
  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_attention_lines_client' })
  client?: Client;

  @Column({ type: 'varchar', length: 160 })
  name!: string;

  /** e.g. 'inbound', 'outbound'. */
  @Column({ type: 'varchar', length: 40 })
  type!: string;

  /** A channel name of CHANNEL_IDS (WebChat, WhatsApp...) or 'Phone', 'Email', 'Video'. */
  @Column({ type: 'varchar', length: 40 })
  channel!: string;

  /** Internal lines serve the organisation's own staff; external ones serve customers. */
  @Column({ type: 'boolean', default: false })
  internal!: boolean;

  @Column({ name: 'business_unit', type: 'varchar', length: 120, nullable: true })
  businessUnit!: string | null;

  @Column({ name: 'origin_type', type: 'varchar', length: 40, nullable: true })
  originType!: string | null;

  @Column({ name: 'origin_line', type: 'varchar', length: 120, nullable: true })
  originLine!: string | null;

  @Column({ name: 'service_type', type: 'varchar', length: 40, nullable: true })
  serviceType!: string | null;

  /** Opening windows per weekday; empty = always open. */
  @Column({ name: 'business_hours', type: 'jsonb', default: () => "'[]'" })
  businessHours!: BusinessHoursWindow[];

  /** Post-conversation poll (no foreign key until the polls area exists). */
  @Column({ name: 'poll_id', type: 'uuid', nullable: true })
  pollId!: string | null;

  /** The campaign whose live queue this line's waiting customers count in. */
  @Index('ix_attention_lines_campaign')
  @Column({ name: 'campaign_id', type: 'uuid', nullable: true })
  campaignId!: string | null;

  @ManyToOne(() => Campaign, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'campaign_id', foreignKeyConstraintName: 'fk_attention_lines_campaign' })
  campaign?: Campaign | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
