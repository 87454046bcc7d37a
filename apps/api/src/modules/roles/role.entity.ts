import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';
import { Client } from '../tenancy/client.entity';

/**
 * Roles belong to one tenant. The built-ins (ADMIN, SUPER, AGENT) are copied into every tenant
 * when it is provisioned, so each tenant can tune its own permissions without touching others.
 */
@Entity({ name: 'roles' })
@Unique('uq_roles_client_code', ['clientId', 'code'])
// Target of users' composite foreign key: a user's role always belongs to the user's tenant.
@Unique('uq_roles_id_client', ['id', 'clientId'])
export class Role {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_roles' })
  id!: string;

  @Index('ix_roles_client')
  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @ManyToOne(() => Client, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'fk_roles_client' })
  client?: Client;

  @Column({ type: 'varchar', length: 40 })
  code!: string;

  @Column({ type: 'varchar', length: 120 })
  name!: string;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  permissions!: string[];

  @Column({ name: 'built_in', type: 'boolean', default: false })
  builtIn!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
