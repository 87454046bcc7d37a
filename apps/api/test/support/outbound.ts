import type { DataSource } from 'typeorm';
import type { TestTenant } from './factories';

/** A phone list written straight to the tables (the import path has its own suite). */
export async function createPhoneList(
  dataSource: DataSource,
  tenant: TestTenant,
  entries: { phone: string; name?: string }[],
  name = 'Dialer list',
): Promise<string> {
  const [list] = (await dataSource.query(`INSERT INTO phone_lists (client_id, name, entry_count) VALUES ($1, $2, $3) RETURNING id`, [
    tenant.client.id,
    name,
    entries.length,
  ])) as { id: string }[];
  let line = 2;
  for (const entry of entries) {
    await dataSource.query(`INSERT INTO phone_list_entries (list_id, client_id, phone, name, line) VALUES ($1, $2, $3, $4, $5)`, [
      list.id,
      tenant.client.id,
      entry.phone,
      entry.name ?? null,
      line++,
    ]);
  }
  return list.id;
}

/** Every day, all day: tests that are not about calling windows. */
export const ALWAYS_OPEN = Object.fromEntries(
  ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((day) => [day, [{ from: '00:00', to: '23:59' }]]),
);
