import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Role } from './role.entity';

/**
 * Optional curation of a role's menu: when a role has rows here, its menu shows only these routes,
 * in this order. Without rows the menu is every route the role's permissions open. A row never
 * grants access: the permission check still applies to both the menu and the endpoints.
 */
@Entity({ name: 'role_menus' })
@Unique('uq_role_menus_role_path', ['roleId', 'routePath'])
export class RoleMenu {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_role_menus' })
  id!: string;

  @Index('ix_role_menus_client')
  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @Column({ name: 'role_id', type: 'uuid' })
  roleId!: string;

  @ManyToOne(() => Role, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'role_id', foreignKeyConstraintName: 'fk_role_menus_role' })
  role?: Role;

  @Column({ name: 'route_path', type: 'varchar', length: 200 })
  routePath!: string;

  @Column({ type: 'integer', default: 0 })
  position!: number;
}
