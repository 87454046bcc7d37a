import type { Language, OrganisationLevel } from '@centralita/contracts';
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
import { Reseller } from './reseller.entity';

/**
 * An organisation: every tenant-owned row carries its id as client_id. Most rows are customer
 * tenants (kind 'tenant'). Each reseller also has exactly one 'reseller' row holding its staff
 * users and roles, and the platform operator one 'platform' row (no reseller): those are never
 * listed, routed to or used as customer tenants (see ClientsService and LEVEL_PERMISSIONS).
 */
@Entity({ name: 'clients' })
@Unique('uq_clients_reseller_name', ['resellerId', 'name'])
@Check('ck_clients_kind', `"kind" IN ('tenant', 'reseller', 'platform')`)
@Check('ck_clients_language', `"language" IN ('es', 'en', 'el', 'it', 'sr', 'de', 'ru')`)
@Check('ck_clients_reseller_by_kind', `("kind" = 'platform') = ("reseller_id" IS NULL)`)
@Index('uq_clients_reseller_home', ['resellerId'], { unique: true, where: `"kind" = 'reseller'` })
@Index('uq_clients_platform', ['kind'], { unique: true, where: `"kind" = 'platform'` })
export class Client {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_clients' })
  id!: string;

  @Column({ type: 'varchar', length: 16, default: 'tenant' })
  kind!: OrganisationLevel;

  /** Null only for the platform operator's own organisation. */
  @Column({ name: 'reseller_id', type: 'uuid', nullable: true })
  resellerId!: string | null;

  @ManyToOne(() => Reseller, (reseller) => reseller.clients, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'reseller_id', foreignKeyConstraintName: 'fk_clients_reseller' })
  reseller?: Reseller;

  @Column({ type: 'varchar', length: 160 })
  name!: string;

  @Column({ name: 'banner_url', type: 'varchar', length: 2048, nullable: true })
  bannerUrl!: string | null;

  @Column({ name: 'login_image_url', type: 'varchar', length: 2048, nullable: true })
  loginImageUrl!: string | null;

  @Column({ name: 'main_color', type: 'varchar', length: 32, nullable: true })
  mainColor!: string | null;

  /** The compact logo (branding logoUrl). */
  @Column({ name: 'menu_logo_url', type: 'varchar', length: 2048, nullable: true })
  menuLogoUrl!: string | null;

  /** The full logo (branding completeLogoUrl). */
  @Column({ name: 'complete_menu_logo_url', type: 'varchar', length: 2048, nullable: true })
  completeMenuLogoUrl!: string | null;

  @Column({ name: 'subscription_plan', type: 'varchar', length: 60, nullable: true })
  subscriptionPlan!: string | null;

  /** The tenant's language: its seeded content's, and what customers are told when their own is unknown. */
  @Column({ type: 'varchar', length: 2, default: 'es' })
  language!: Language;

  /** Origins allowed to frame the web-chat widget of this tenant. */
  @Column({ name: 'allowed_origins', type: 'text', array: true, default: () => "'{}'" })
  allowedOrigins!: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
