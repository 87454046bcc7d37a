import type { IvrTree } from '@centralita/contracts';
import type { EntityManager } from 'typeorm';
import type { DemoContent } from './seed-content';

/** Fixed ids so the demo IVR and trunk are seeded once, however often `seed` runs. */
export const DEMO_IVR_ID = '7a2e4c10-5b1d-4e8f-9c3a-1d6b8e0f2a01';
export const DEMO_TRUNK_ID = '7a2e4c10-5b1d-4e8f-9c3a-1d6b8e0f2a02';

/**
 * Demo telephony, in the tenant's language: a published main-menu IVR (1 → customer service,
 * 2 → the help desk, 0 → hang up) and a trunk pointing at a placeholder host (no secret stored).
 */
export async function seedTelephonyDemo(manager: EntityManager, clientId: string, content: DemoContent): Promise<void> {
  const { telephony } = content;
  const found: { id: string; name: string }[] = await manager.query(
    `SELECT id, name FROM attention_lines WHERE client_id = $1 AND deleted_at IS NULL AND name = ANY($2::text[])`,
    [clientId, [content.lines.customerService, content.lines.helpDesk]],
  );
  const lines = [content.lines.customerService, content.lines.helpDesk].flatMap((name) => found.filter((line) => line.name === name));
  if (lines.length >= 2) {
    const tree: IvrTree = {
      rootNodeId: 'main',
      nodes: [
        {
          id: 'main',
          name: telephony.ivrName,
          promptText: telephony.prompt,
          promptAudioUrl: null,
          timeoutSeconds: 5,
          maxRetries: 2,
          fallback: { type: 'line', targetId: lines[0].id },
          options: [
            { digit: '1', label: telephony.customerService, destination: { type: 'line', targetId: lines[0].id } },
            { digit: '2', label: telephony.helpDesk, destination: { type: 'line', targetId: lines[1].id } },
            { digit: '0', label: telephony.hangUp, destination: { type: 'hangup', targetId: null } },
          ],
        },
      ],
    };
    await manager.query(
      `INSERT INTO ivrs (id, client_id, name, description, active, draft_tree, published_tree, published_version, published_at)
       VALUES ($1, $2, $4, $5, true, $3::jsonb, $3::jsonb, 1, now())
       ON CONFLICT DO NOTHING`,
      [DEMO_IVR_ID, clientId, JSON.stringify(tree), telephony.ivrName, telephony.ivrDescription],
    );
  }
  await manager.query(
    `INSERT INTO trunks (id, client_id, name, host, port, transport, username, caller_id, max_concurrent_calls, active)
     VALUES ($1, $2, $3, 'sip.example.com', 5060, 'udp', 'demo', '+34910000000', 10, true)
     ON CONFLICT DO NOTHING`,
    [DEMO_TRUNK_ID, clientId, telephony.trunkName],
  );
}
