import type { IvrTree } from '@centralita/contracts';
import { OutgoingAddressPolicy, PostgresFileStore } from '@centralita/contracts/server';
import type { DataSource } from 'typeorm';
import { IvrPromptsService } from '../../../api/src/modules/ivrs/ivr-prompts.service';
import { createDataSource } from '../../../api/src/database/data-source';
import { createTenant, type TestTenant } from '../../../api/test/support/factories';
import { createLine } from '../../../api/test/support/realtime';
import { closedLine } from './business-hours';
import type { VoiceDb } from './inbound-numbers';

/** Monday 2026-11-23 10:00 and Sunday 2026-11-22 10:00 in Madrid (UTC+1 in November). */
const MONDAY_10_MADRID = Date.parse('2026-11-23T09:00:00Z');
const SUNDAY_10_MADRID = Date.parse('2026-11-22T09:00:00Z');
const MONDAY_08_MADRID = Date.parse('2026-11-23T07:00:00Z');

const toLine = (lineId: string): IvrTree => ({
  rootNodeId: 'main',
  nodes: [
    {
      id: 'main',
      name: 'Main',
      promptText: null,
      promptAudioUrl: null,
      promptAudioFileId: null,
      timeoutSeconds: 5,
      maxRetries: 0,
      fallback: { type: 'line', targetId: lineId },
      options: [{ digit: '1', label: null, destination: { type: 'line', targetId: lineId } }],
    },
  ],
});

/**
 * The voice server's business-hours check against PostgreSQL, and the closed line's sentence rendered by the API's
 * publish (espeak-ng + sox, as ivrs apply runs it) found by the worker under the same cache key.
 */
describe('closedLine (business hours of the line an IVR sends a caller to)', () => {
  let ds: DataSource;
  let db: VoiceDb;
  let tenant: TestTenant;
  let other: TestTenant;
  let prompts: IvrPromptsService;

  beforeAll(async () => {
    ds = createDataSource(process.env.DATABASE_URL!);
    await ds.initialize();
    db = { query: (sql, params) => ds.query(sql, params) };
    tenant = await createTenant(ds);
    other = await createTenant(ds);
    await ds.query(`INSERT INTO dashboard_settings (client_id, settings, updated_at) VALUES ($1, $2, now())`, [
      tenant.client.id,
      JSON.stringify({ timeZone: 'Europe/Madrid' }),
    ]);
    prompts = new IvrPromptsService(new PostgresFileStore((text, values) => ds.query(text, values)), ds, new OutgoingAddressPolicy());
  });
  afterAll(() => ds.destroy());

  const lineWithHours = async (t: TestTenant) => {
    const lineId = await createLine(ds, t, `Line ${Math.random().toString(36).slice(2, 8)}`);
    await ds.query(`UPDATE attention_lines SET business_hours = $2 WHERE id = $1`, [
      lineId,
      JSON.stringify([{ day: 1, from: '09:00', to: '18:00' }]),
    ]);
    return lineId;
  };

  it('is null while the line is open (in the tenant zone) or has no hours, closed outside them', async () => {
    const lineId = await lineWithHours(tenant);
    expect(await closedLine(db, tenant.client.id, lineId, 'en', MONDAY_10_MADRID)).toBeNull();
    expect(await closedLine(db, tenant.client.id, lineId, 'en', SUNDAY_10_MADRID)).toEqual({ audioFileId: null });
    // 08:00 in Madrid is 07:00 UTC: read in the tenant's zone, not UTC, it is before opening.
    expect(await closedLine(db, tenant.client.id, lineId, 'en', MONDAY_08_MADRID)).toEqual({ audioFileId: null });
    const always = await createLine(ds, tenant, `Always ${Math.random().toString(36).slice(2, 8)}`);
    expect(await closedLine(db, tenant.client.id, always, 'en', SUNDAY_10_MADRID)).toBeNull();
  });

  it("never reads another tenant's line", async () => {
    const lineId = await lineWithHours(other);
    expect(await closedLine(db, tenant.client.id, lineId, 'en', SUNDAY_10_MADRID)).toBeNull();
  });

  it("finds the sentence the IVR's publish rendered: the default in the IVR language, then the tenant's own message", async () => {
    const lineId = await lineWithHours(tenant);
    await prompts.renderTree(tenant.client.id, 'de', toLine(lineId));
    const german = await closedLine(db, tenant.client.id, lineId, 'de', SUNDAY_10_MADRID);
    expect(german?.audioFileId).toMatch(/^[0-9a-f-]{36}$/);
    // Another language was not rendered: the voice server plays its tone instead.
    expect(await closedLine(db, tenant.client.id, lineId, 'it', SUNDAY_10_MADRID)).toEqual({ audioFileId: null });
    const [{ bytes }] = await ds.query(`SELECT byte_size AS bytes FROM stored_files WHERE id = $1`, [german!.audioFileId]);
    expect(Number(bytes)).toBeGreaterThan(8000); // more than half a second of 8 kHz 16-bit speech

    await ds.query(
      `INSERT INTO platform_settings (client_id, settings) VALUES ($1, $2)
       ON CONFLICT (client_id) DO UPDATE SET settings = EXCLUDED.settings`,
      [tenant.client.id, JSON.stringify({ offHoursMessage: 'Wir sind im Urlaub.' })],
    );
    // Changed after the publish: not rendered yet, so no audio until the IVR is published again.
    expect(await closedLine(db, tenant.client.id, lineId, 'de', SUNDAY_10_MADRID)).toEqual({ audioFileId: null });
    await prompts.renderTree(tenant.client.id, 'de', toLine(lineId));
    const own = await closedLine(db, tenant.client.id, lineId, 'de', SUNDAY_10_MADRID);
    expect(own?.audioFileId).toMatch(/^[0-9a-f-]{36}$/);
    expect(own?.audioFileId).not.toBe(german?.audioFileId);
  });
});
