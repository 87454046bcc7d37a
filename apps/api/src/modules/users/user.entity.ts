import {
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { Role } from '../roles/role.entity';
import { Client } from '../tenancy/client.entity';

@Entity({ name: 'users' })
@Unique('uq_users_email', ['email'])
// The role must belong to the same tenant as the user (defence in depth under the service checks).
@ForeignKey(() => Role, ['roleId', 'clientId'], ['id', 'clientId'], { name: 'fk_users_role_same_client', onDelete: 'RESTRICT' })
export class User {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_users' })
  id!: string;

  @Index('ix_users_client')
  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_users_client' })
  client?: Client;

  /** Stored trimmed and lower-cased; unique across the platform because it is the sign-in name. */
  @Column({ type: 'varchar', length: 254 })
  email!: string;

  @Column({ type: 'varchar', length: 160 })
  name!: string;

  @Column({ name: 'avatar_url', type: 'varchar', length: 2048, nullable: true })
  avatarUrl!: string | null;

  @Index('ix_users_role')
  @Column({ name: 'role_id', type: 'uuid' })
  roleId!: string;

  @ManyToOne(() => Role, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'role_id', foreignKeyConstraintName: 'fk_users_role' })
  role?: Role;

  @Column({ name: 'password_hash', type: 'varchar', length: 255 })
  passwordHash!: string;

  @Column({ name: 'password_expires_at', type: 'timestamptz', nullable: true })
  passwordExpiresAt!: Date | null;

  @Column({ type: 'boolean', default: true })
  active!: boolean;

  /** Copied into every access token; bumping it invalidates all tokens issued before. */
  @Column({ name: 'token_version', type: 'integer', default: 0 })
  tokenVersion!: number;

  /** Minutes a session may stay idle before its refresh token expires. */
  @Column({ name: 'session_time_minutes', type: 'integer', default: 480 })
  sessionTimeMinutes!: number;

  @Column({ name: 'last_login_at', type: 'timestamptz', nullable: true })
  lastLoginAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
