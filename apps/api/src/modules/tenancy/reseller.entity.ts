import { Column, CreateDateColumn, Entity, OneToMany, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';
import { Client } from './client.entity';

/** A reseller (brand) owns client tenants. */
@Entity({ name: 'resellers' })
@Unique('uq_resellers_name', ['name'])
export class Reseller {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_resellers' })
  id!: string;

  @Column({ type: 'varchar', length: 120 })
  name!: string;

  /** Its customer tenants and its staff organisation (filter on kind). */
  @OneToMany(() => Client, (client) => client.reseller)
  clients?: Client[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
