import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';

/**
 * A self-registration waiting for its owner to open the mailed link (SELF_REGISTRATION=on). Stored
 * as the SHA-256 of its random token, single use, expiring; confirming it creates a new tenant
 * whose first ADMIN is this user. Never holds the password itself, only its argon2id hash.
 */
@Entity({ name: 'registration_requests' })
@Unique('uq_registration_requests_hash', ['tokenHash'])
export class RegistrationRequest {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_registration_requests' })
  id!: string;

  @Index('ix_registration_requests_email')
  @Column({ type: 'varchar', length: 254 })
  email!: string;

  @Column({ type: 'varchar', length: 160 })
  name!: string;

  @Column({ name: 'password_hash', type: 'varchar', length: 255 })
  passwordHash!: string;

  @Column({ name: 'token_hash', type: 'char', length: 64 })
  tokenHash!: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'confirmed_at', type: 'timestamptz', nullable: true })
  confirmedAt!: Date | null;

  @Column({ name: 'requested_ip', type: 'varchar', length: 64, nullable: true })
  requestedIp!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
