import {
  Check,
  Column,
  CreateDateColumn,
  DeleteDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  OneToMany,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Client } from '../tenancy/client.entity';

/** A post-conversation poll (survey). Lower and upper rank are percentages that sum to 100. */
@Entity({ name: 'polls' })
@Check('ck_polls_rank_sum', '"lower_rank" + "upper_rank" = 100')
export class Poll {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_polls' })
  id!: string;

  @Index('ix_polls_client')
  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_polls_client' })
  client?: Client;

  @Column({ type: 'varchar', length: 160 })
  name!: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description!: string | null;

  @Column({ type: 'boolean', default: true })
  active!: boolean;

  @Column({ name: 'lower_rank', type: 'smallint' })
  lowerRank!: number;

  @Column({ name: 'upper_rank', type: 'smallint' })
  upperRank!: number;

  @OneToMany(() => PollQuestion, (question) => question.poll)
  questions?: PollQuestion[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}

/** A reusable catalog of answer options (e.g. "Very good … Very bad"). */
@Entity({ name: 'poll_answer_groups' })
export class PollAnswerGroup {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_poll_answer_groups' })
  id!: string;

  @Index('ix_poll_answer_groups_client')
  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_poll_answer_groups_client' })
  client?: Client;

  @Column({ type: 'varchar', length: 160 })
  name!: string;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  options!: string[];
}

@Entity({ name: 'poll_questions' })
export class PollQuestion {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_poll_questions' })
  id!: string;

  @Index('ix_poll_questions_poll')
  @Column({ name: 'poll_id', type: 'uuid' })
  pollId!: string;

  @ManyToOne(() => Poll, (poll) => poll.questions, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'poll_id', foreignKeyConstraintName: 'fk_poll_questions_poll' })
  poll?: Poll;

  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @Column({ type: 'smallint' })
  position!: number;

  @Column({ type: 'varchar', length: 300 })
  text!: string;

  @Column({ name: 'response_type', type: 'varchar', length: 20 })
  responseType!: string;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  options!: string[];

  @Column({ name: 'answer_group_id', type: 'uuid', nullable: true })
  answerGroupId!: string | null;

  @ManyToOne(() => PollAnswerGroup, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'answer_group_id', foreignKeyConstraintName: 'fk_poll_questions_group' })
  answerGroup?: PollAnswerGroup | null;

  /** Questions removed from a poll that already has answers are retired, not deleted. */
  @Column({ name: 'retired_at', type: 'timestamptz', nullable: true })
  retiredAt!: Date | null;
}

/** One answer to one question (from the post-conversation flow). */
@Entity({ name: 'poll_responses' })
@Index('ix_poll_responses_question', ['questionId', 'createdAt'])
export class PollResponse {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_poll_responses' })
  id!: string;

  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @Index('ix_poll_responses_poll')
  @Column({ name: 'poll_id', type: 'uuid' })
  pollId!: string;

  @ManyToOne(() => Poll, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'poll_id', foreignKeyConstraintName: 'fk_poll_responses_poll' })
  poll?: Poll;

  @Column({ name: 'question_id', type: 'uuid' })
  questionId!: string;

  @ManyToOne(() => PollQuestion, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'question_id', foreignKeyConstraintName: 'fk_poll_responses_question' })
  question?: PollQuestion;

  @Column({ name: 'conversation_id', type: 'uuid', nullable: true })
  conversationId!: string | null;

  @Column({ type: 'varchar', length: 1000 })
  value!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
