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
import { AttentionLine } from '../attention-lines/attention-line.entity';
import { Client } from '../tenancy/client.entity';
import { User } from '../users/user.entity';

/** A response template agents insert by shortcut: for the whole tenant, one line, or one agent. */
@Entity({ name: 'predefined_messages' })
@Check('ck_predefined_messages_scope', `"scope" IN ('tenant', 'line', 'personal')`)
export class PredefinedMessage {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_predefined_messages' })
  id!: string;

  @Index('ix_predefined_messages_client')
  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_predefined_messages_client' })
  client?: Client;

  @Column({ type: 'varchar', length: 500 })
  message!: string;

  @Column({ type: 'varchar', length: 40 })
  shortcut!: string;

  @Column({ type: 'varchar', length: 10 })
  scope!: string;

  @Column({ name: 'attention_line_id', type: 'uuid', nullable: true })
  attentionLineId!: string | null;

  @ManyToOne(() => AttentionLine, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'attention_line_id', foreignKeyConstraintName: 'fk_predefined_messages_line' })
  attentionLine?: AttentionLine | null;

  @Column({ name: 'owner_user_id', type: 'uuid', nullable: true })
  ownerUserId!: string | null;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'owner_user_id', foreignKeyConstraintName: 'fk_predefined_messages_owner' })
  owner?: User | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
