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

/** A questions-and-answers knowledge entry agents search while they serve customers. */
@Entity({ name: 'qna_entries' })
export class QnaEntry {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_qna_entries' })
  id!: string;

  @Index('ix_qna_entries_client')
  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_qna_entries_client' })
  client?: Client;

  @Column({ type: 'varchar', length: 300 })
  question!: string;

  @Column({ type: 'varchar', length: 4000 })
  answer!: string;

  @Column({ type: 'varchar', length: 80, nullable: true })
  category!: string | null;

  @Column({ type: 'boolean', default: true })
  active!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
