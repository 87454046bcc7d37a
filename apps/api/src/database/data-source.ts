import { DataSource, type DataSourceOptions } from 'typeorm';
import { AttentionLine } from '../modules/attention-lines/attention-line.entity';
import { PasswordResetToken } from '../modules/auth/password-reset-token.entity';
import { RefreshToken } from '../modules/auth/refresh-token.entity';
import { Campaign } from '../modules/campaigns/campaign.entity';
import { RoleMenu } from '../modules/roles/role-menu.entity';
import { Role } from '../modules/roles/role.entity';
import { Client } from '../modules/tenancy/client.entity';
import { Reseller } from '../modules/tenancy/reseller.entity';
import { User } from '../modules/users/user.entity';
import { TenancyAndAuth1763700000000 } from './migrations/1763700000000-tenancy-and-auth';
import { AttentionLinesAndCampaigns1763700000001 } from './migrations/1763700000001-attention-lines-and-campaigns';

export const ENTITIES = [Reseller, Client, Role, RoleMenu, User, RefreshToken, PasswordResetToken, AttentionLine, Campaign];
/** In order. Never edit a migration that has shipped: add a new one. */
export const MIGRATIONS = [TenancyAndAuth1763700000000, AttentionLinesAndCampaigns1763700000001];

export function dataSourceOptions(url: string): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    migrationsTransactionMode: 'all',
    // Schema changes only ever come from migrations.
    synchronize: false,
    migrationsRun: false,
    // gen_random_uuid() is built into PostgreSQL 13+: no extension to install (and no superuser).
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    applicationName: 'centralita',
    // Fail fast (the API answers 503) instead of hanging while PostgreSQL is away.
    extra: { max: 10, connectionTimeoutMillis: 5000, statement_timeout: 15000, idle_in_transaction_session_timeout: 30000 },
  };
}

export function createDataSource(url: string): DataSource {
  return new DataSource(dataSourceOptions(url));
}
