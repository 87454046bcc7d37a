import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';
import { Client } from '../tenancy/client.entity';

/** One row per tenant: console settings and the emoticons offered to agents. */
@Entity({ name: 'platform_settings' })
export class PlatformSettingsRow {
  @PrimaryColumn({ name: 'client_id', type: 'uuid', primaryKeyConstraintName: 'pk_platform_settings' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_platform_settings_client' })
  client?: Client;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  settings!: Record<string, unknown>;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  emoticons!: string[];

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** A channel's configuration; `secrets` holds AES-256-GCM ciphertexts only (see ConfigCrypto). */
@Entity({ name: 'channel_configs' })
@Unique('uq_channel_configs_client_channel', ['clientId', 'channel'])
export class ChannelConfig {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_channel_configs' })
  id!: string;

  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_channel_configs_client' })
  client?: Client;

  @Column({ type: 'varchar', length: 40 })
  channel!: string;

  @Column({ type: 'boolean', default: false })
  enabled!: boolean;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  settings!: Record<string, string>;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  secrets!: Record<string, string>;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
