import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { AttentionLine } from '../attention-lines/attention-line.entity';
import { Ivr } from '../ivrs/ivr.entity';
import { Client } from '../tenancy/client.entity';
import { Trunk } from './trunk.entity';

/**
 * A called number a trunk answers (E.164 with "+", unique platform-wide: the voice server finds the
 * tenant by it), sent to an IVR or straight to an attention line: exactly one of the two.
 */
@Entity({ name: 'trunk_inbound_numbers' })
@Unique('uq_trunk_inbound_numbers_number', ['number'])
@Index('ix_trunk_inbound_numbers_ivr', ['ivrId'], { where: '"ivr_id" IS NOT NULL' })
@Index('ix_trunk_inbound_numbers_line', ['attentionLineId'], { where: '"attention_line_id" IS NOT NULL' })
@Check('ck_trunk_inbound_numbers_target', `("ivr_id" IS NULL) <> ("attention_line_id" IS NULL)`)
export class TrunkInboundNumber {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_trunk_inbound_numbers' })
  id!: string;

  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_trunk_inbound_numbers_client' })
  client?: Client;

  @Index('ix_trunk_inbound_numbers_trunk')
  @Column({ name: 'trunk_id', type: 'uuid' })
  trunkId!: string;

  @ManyToOne(() => Trunk, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'trunk_id', foreignKeyConstraintName: 'fk_trunk_inbound_numbers_trunk' })
  trunk?: Trunk;

  @Column({ type: 'varchar', length: 16 })
  number!: string;

  @Column({ name: 'ivr_id', type: 'uuid', nullable: true })
  ivrId!: string | null;

  @ManyToOne(() => Ivr, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'ivr_id', foreignKeyConstraintName: 'fk_trunk_inbound_numbers_ivr' })
  ivr?: Ivr;

  @Column({ name: 'attention_line_id', type: 'uuid', nullable: true })
  attentionLineId!: string | null;

  @ManyToOne(() => AttentionLine, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'attention_line_id', foreignKeyConstraintName: 'fk_trunk_inbound_numbers_line' })
  attentionLine?: AttentionLine;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
