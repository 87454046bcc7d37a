import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';
import { Reseller } from './reseller.entity';

/** A client is a tenant: every tenant-owned row carries its id as client_id. */
@Entity({ name: 'clients' })
@Unique('uq_clients_reseller_name', ['resellerId', 'name'])
export class Client {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_clients' })
  id!: string;

  @Column({ name: 'reseller_id', type: 'uuid' })
  resellerId!: string;

  @ManyToOne(() => Reseller, { onDelete: 'RESTRICT' })
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

  /** Origins allowed to frame the web-chat widget of this tenant. */
  @Column({ name: 'allowed_origins', type: 'text', array: true, default: () => "'{}'" })
  allowedOrigins!: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
