import type { IvrTree } from '@centralita/contracts';
import type { EntityManager } from 'typeorm';

/** Fixed ids so the demo IVR and trunk are seeded once, however often `seed` runs. */
export const DEMO_IVR_ID = '7a2e4c10-5b1d-4e8f-9c3a-1d6b8e0f2a01';
export const DEMO_TRUNK_ID = '7a2e4c10-5b1d-4e8f-9c3a-1d6b8e0f2a02';

/**
 * Demo telephony: a published "Main menu" IVR (1 → first demo line, 2 → second line, 0 → hang up)
 * and a trunk pointing at a placeholder host (no secret stored).
 */
export async function seedTelephonyDemo(manager: EntityManager, clientId: string): Promise<void> {
  const lines: { id: string }[] = await manager.query(
    `SELECT id FROM attention_lines WHERE client_id = $1 AND deleted_at IS NULL ORDER BY created_at, name LIMIT 2`,
    [clientId],
  );
  if (lines.length >= 2) {
    const tree: IvrTree = {
      rootNodeId: 'main',
      nodes: [
        {
          id: 'main',
          name: 'Main menu',
          promptText: 'Welcome. Press 1 for customer service, 2 for the help desk, or 0 to end the call.',
          promptAudioUrl: null,
          timeoutSeconds: 5,
          maxRetries: 2,
          fallback: { type: 'line', targetId: lines[0].id },
          options: [
            { digit: '1', label: 'Customer service', destination: { type: 'line', targetId: lines[0].id } },
            { digit: '2', label: 'Help desk', destination: { type: 'line', targetId: lines[1].id } },
            { digit: '0', label: 'Hang up', destination: { type: 'hangup', targetId: null } },
          ],
        },
      ],
    };
    await manager.query(
      `INSERT INTO ivrs (id, client_id, name, description, active, draft_tree, published_tree, published_version, published_at)
       VALUES ($1, $2, 'Main menu', 'Answers the demo phone number', true, $3::jsonb, $3::jsonb, 1, now())
       ON CONFLICT DO NOTHING`,
      [DEMO_IVR_ID, clientId, JSON.stringify(tree)],
    );
  }
  await manager.query(
    `INSERT INTO trunks (id, client_id, name, host, port, transport, username, caller_id, max_concurrent_calls, active)
     VALUES ($1, $2, 'Demo carrier', 'sip.example.com', 5060, 'udp', 'demo', '+34910000000', 10, true)
     ON CONFLICT DO NOTHING`,
    [DEMO_TRUNK_ID, clientId],
  );
}
