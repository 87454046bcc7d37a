import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';
import { Client } from '../tenancy/client.entity';

/** A service (attention) line customers reach; minimal for now, the admin issue extends it. */
@Entity({ name: 'attention_lines' })
@Unique('uq_attention_lines_client_name', ['clientId', 'name'])
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

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
