import { Column, CreateDateColumn, Entity, ForeignKey, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Role } from '../roles/role.entity';
import { Client } from '../tenancy/client.entity';
import { User } from '../users/user.entity';

/**
 * An invitation to join an organisation (a tenant, or a reseller's or the platform's staff): the
 * only way an account is created for someone else. The link's random token is stored as its
 * SHA-256; it is single use, expires, and re-sending replaces it. `existingAccount` marks an
 * invitation to an address that already has an account elsewhere: its mail says so and carries no
 * usable token, while the inviting administrator sees the same pending invitation as for any other
 * address (nothing tells them the address is known to the platform).
 */
@Entity({ name: 'user_invitations' })
@Unique('uq_user_invitations_token_hash', ['tokenHash'])
@Index('uq_user_invitations_pending_email', ['clientId', 'email'], {
  unique: true,
  where: `"accepted_at" IS NULL AND "revoked_at" IS NULL`,
})
// The role must belong to the organisation the user is invited to, as for users.
@ForeignKey(() => Role, ['roleId', 'clientId'], ['id', 'clientId'], { name: 'fk_user_invitations_role_same_client', onDelete: 'CASCADE' })
export class UserInvitation {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_user_invitations' })
  id!: string;

  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_user_invitations_client' })
  client?: Client;

  /** Trimmed and lower-cased, like users.email. */
  @Column({ type: 'varchar', length: 254 })
  email!: string;

  @Column({ type: 'varchar', length: 160 })
  name!: string;

  @Column({ name: 'role_id', type: 'uuid' })
  roleId!: string;

  @ManyToOne(() => Role, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'role_id', foreignKeyConstraintName: 'fk_user_invitations_role' })
  role?: Role;

  /** What the new user serves once they accept (checked again then: a line deleted meanwhile is dropped). */
  @Column({ name: 'attention_line_ids', type: 'uuid', array: true, default: () => "'{}'" })
  attentionLineIds!: string[];

  @Column({ name: 'campaign_ids', type: 'uuid', array: true, default: () => "'{}'" })
  campaignIds!: string[];

  @Column({ name: 'pause_reason_codes', type: 'text', array: true, default: () => "'{}'" })
  pauseReasonCodes!: string[];

  @Column({ name: 'token_hash', type: 'char', length: 64 })
  tokenHash!: string;

  @Column({ name: 'existing_account', type: 'boolean', default: false })
  existingAccount!: boolean;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'accepted_at', type: 'timestamptz', nullable: true })
  acceptedAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'invited_by', type: 'uuid', nullable: true })
  invitedBy!: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'invited_by', foreignKeyConstraintName: 'fk_user_invitations_invited_by' })
  inviter?: User;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
