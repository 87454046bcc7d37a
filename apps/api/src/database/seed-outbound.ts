import { DEFAULT_RETRY_DELAYS } from '@centralita/contracts';
import { describeCampaignState, dialerCampaignMachine, initial, persist } from '@centralita/domain';
import type { EntityManager } from 'typeorm';
import type { DemoContent } from './seed-content';

const DEMO_LIST_ID = '00000000-0000-4000-8000-00000000d1a1';
const DEMO_DIALER_CAMPAIGN_ID = '00000000-0000-4000-8000-00000000d1a2';
const DEMO_TEMPLATE_ID = '00000000-0000-4000-8000-00000000d1a3';

/** The demo campaign's script, in the tenant's language: the contact's name (with a default), a fixed offer, the phone. */
function demoTemplate({ outbound }: DemoContent) {
  return {
    name: outbound.templateName,
    description: outbound.templateDescription,
    script: outbound.script,
    parameters: [
      { key: 'customerName', label: outbound.customerNameLabel, source: 'name', value: '', defaultValue: outbound.customerNameDefault },
      { key: 'offer', label: outbound.offerLabel, source: 'fixed', value: outbound.offer, defaultValue: '' },
      { key: 'phone', label: outbound.phoneLabel, source: 'phone', value: '', defaultValue: '' },
    ],
  };
}

/** Every day 09:00–21:00 in the contact's local time. */
const DEMO_WINDOWS = Object.fromEntries(
  ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((day) => [day, [{ from: '09:00', to: '21:00' }]]),
);

const DEMO_CONTACTS = [
  ['+34600100101', 'Lucía Fernández'],
  ['+34600100102', 'Mateo García'],
  ['+34600100103', 'Sofía Martínez'],
  ['+34600100104', 'Hugo López'],
  ['+34600100105', 'Martina Sánchez'],
  ['+34600100106', 'Leo Pérez'],
  ['+34600100107', 'Valeria Gómez'],
  ['+34600100108', 'Daniel Ruiz'],
  ['+34600100109', 'Julia Díaz'],
  ['+34600100110', 'Pablo Moreno'],
  ['+34600100111', 'Carla Álvarez'],
  ['+34600100112', 'Álvaro Romero'],
] as const;

/**
 * A demo phone list and a draft progressive dialer campaign over it (the carrier simulator answers
 * when a supervisor starts it and agents wait for outbound calls). Idempotent: fixed ids.
 */
export async function seedOutboundDemo(manager: EntityManager, clientId: string, content: DemoContent): Promise<void> {
  const script = demoTemplate(content);
  await manager.query(`INSERT INTO phone_lists (id, client_id, name, entry_count) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`, [
    DEMO_LIST_ID,
    clientId,
    content.outbound.listName,
    DEMO_CONTACTS.length,
  ]);
  let line = 2;
  for (const [phone, name] of DEMO_CONTACTS) {
    await manager.query(
      `INSERT INTO phone_list_entries (list_id, client_id, phone, name, line) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (list_id, phone) DO NOTHING`,
      [DEMO_LIST_ID, clientId, phone, name, line++],
    );
  }
  const template = (await manager.query(
    `INSERT INTO outbound_templates (id, tenant_id, name, description, script, parameters) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT DO NOTHING RETURNING id`,
    [DEMO_TEMPLATE_ID, clientId, script.name, script.description, script.script, JSON.stringify(script.parameters)],
  )) as { id: string }[];
  const [exists] = (await manager.query(`SELECT id FROM dialer_campaigns WHERE id = $1`, [DEMO_DIALER_CAMPAIGN_ID])) as { id: string }[];
  // A demo database seeded before templates existed gets the script too (only when it was just added).
  if (exists && template.length > 0)
    await manager.query(`UPDATE dialer_campaigns SET template_id = $2 WHERE id = $1 AND template_id IS NULL`, [
      DEMO_DIALER_CAMPAIGN_ID,
      DEMO_TEMPLATE_ID,
    ]);
  if (exists) return;
  const created = initial(dialerCampaignMachine, {
    id: DEMO_DIALER_CAMPAIGN_ID,
    tenantId: clientId,
    mode: 'progressive',
    at: Date.now(),
    actor: { kind: 'system', id: 'seed' },
  });
  const inserted = (await manager.query(
    `INSERT INTO dialer_campaigns (id, tenant_id, name, phone_list_id, mode, retry_delays, calling_windows, status, snapshot, version, last_event, template_id)
     VALUES ($1, $2, $10, $3, 'progressive', $4, $5, $6, $7, 1, $8, $9) ON CONFLICT (id) DO NOTHING RETURNING id`,
    [
      DEMO_DIALER_CAMPAIGN_ID,
      clientId,
      DEMO_LIST_ID,
      JSON.stringify(DEFAULT_RETRY_DELAYS),
      JSON.stringify(DEMO_WINDOWS),
      describeCampaignState(created.snapshot),
      JSON.stringify(persist(dialerCampaignMachine, created.snapshot)),
      created.record.event,
      // The name may already be taken by a template of the tenant's own (then nothing was inserted).
      (await manager.query(`SELECT id FROM outbound_templates WHERE id = $1 AND deleted_at IS NULL`, [DEMO_TEMPLATE_ID])).length
        ? DEMO_TEMPLATE_ID
        : null,
      content.outbound.campaignName,
    ],
  )) as { id: string }[];
  if (inserted.length === 0) return;
  await manager.query(
    `INSERT INTO outbound_contacts (tenant_id, campaign_id, entry_id, phone, name)
     SELECT $1, $2, e.id, e.phone, e.name FROM phone_list_entries e WHERE e.list_id = $3 ON CONFLICT DO NOTHING`,
    [clientId, DEMO_DIALER_CAMPAIGN_ID, DEMO_LIST_ID],
  );
  const record = created.record;
  await manager.query(
    `INSERT INTO transition_log (tenant_id, entity_type, entity_id, from_state, to_state, event, actor_kind, actor_id, at, at_ms, version)
     VALUES ($1, 'dialer_campaign', $2, $3, $4, $5, $6, $7, $8, $9, 1)`,
    [
      clientId,
      DEMO_DIALER_CAMPAIGN_ID,
      record.from,
      record.to,
      record.event,
      record.actor.kind,
      record.actor.id ?? null,
      new Date(record.at),
      record.at,
    ],
  );
}
