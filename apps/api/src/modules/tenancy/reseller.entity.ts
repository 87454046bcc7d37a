import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';

/** A reseller (brand) owns client tenants. */
@Entity({ name: 'resellers' })
@Unique('uq_resellers_name', ['name'])
export class Reseller {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_resellers' })
  id!: string;

  @Column({ type: 'varchar', length: 120 })
  name!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
