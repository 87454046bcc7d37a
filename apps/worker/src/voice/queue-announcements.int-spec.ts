import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../../api/src/database/data-source';
import { createTenant, type TestTenant } from '../../../api/test/support/factories';
import { createLine } from '../../../api/test/support/realtime';
import type { VoiceDb } from './inbound-numbers';
import { loadVoiceSettings, QueueAnnouncements, queuePosition } from './queue-announcements';

/** The voice server's look-ups for waiting callers against PostgreSQL, and the position sentences rendered by espeak-ng + sox. */
describe('queue announcements (voice server)', () => {
  let ds: DataSource;
  let db: VoiceDb;
  let tenant: TestTenant;
  let dir: string;

  beforeAll(async () => {
    ds = createDataSource(process.env.DATABASE_URL!);
    await ds.initialize();
    db = { query: (sql, params) => ds.query(sql, params) };
    tenant = await createTenant(ds);
    dir = mkdtempSync(path.join(tmpdir(), 'queue-positions-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await ds.destroy();
  });

  /** A conversation on the line (and, for a caller, its voice_calls row): answers the call id or the conversation id. */
  const waiting = async (lineId: string, fields: { status?: string; priority?: number; queuedAgoMs: number; call?: boolean }) => {
    const id = randomUUID();
    await ds.query(
      `INSERT INTO conversations (id, tenant_id, channel, entry_line_id, attention_line_id, status, customer_name, snapshot, version, last_event, queued_at, priority)
       VALUES ($1, $2, 'phone', $3, $3, $4, 'Caller', '{"context":{}}', 1, 'seeded', $5, $6)`,
      [id, tenant.client.id, lineId, fields.status ?? 'LiningUp', new Date(Date.now() - fields.queuedAgoMs), fields.priority ?? 0],
    );
    if (!fields.call) return id;
    const callId = randomUUID();
    await ds.query(`INSERT INTO voice_calls (id, client_id, conversation_id, stage) VALUES ($1, $2, $3, 'queue')`, [
      callId,
      tenant.client.id,
      id,
    ]);
    return callId;
  };

  it('answers the caller’s place in the routing order (priority, then queue time), null when not waiting or unknown', async () => {
    const lineId = await createLine(ds, tenant, `Phone ${randomUUID().slice(0, 8)}`);
    const other = await createLine(ds, tenant, `Other ${randomUUID().slice(0, 8)}`);
    await waiting(lineId, { queuedAgoMs: 60_000 }); // earlier
    await waiting(lineId, { queuedAgoMs: 10_000, priority: 5 }); // later but more urgent
    await waiting(lineId, { queuedAgoMs: 90_000, status: 'Active' }); // being served: not counted
    await waiting(other, { queuedAgoMs: 90_000 }); // another line
    const caller = await waiting(lineId, { queuedAgoMs: 30_000, call: true });
    await waiting(lineId, { queuedAgoMs: 5_000 }); // after the caller
    expect(await queuePosition(db, tenant.client.id, caller)).toBe(3);
    const urgent = await waiting(lineId, { queuedAgoMs: 1_000, priority: 9, call: true });
    expect(await queuePosition(db, tenant.client.id, urgent)).toBe(1);
    expect(await queuePosition(db, tenant.client.id, caller)).toBe(4);

    const served = await waiting(lineId, { queuedAgoMs: 1_000, status: 'Active', call: true });
    expect(await queuePosition(db, tenant.client.id, served)).toBeNull();
    expect(await queuePosition(db, tenant.client.id, randomUUID())).toBeNull();
    const stranger = await createTenant(ds);
    expect(await queuePosition(db, stranger.client.id, caller)).toBeNull();
  });

  it('reads the tenant’s settings, with the defaults when it saved none', async () => {
    expect(await loadVoiceSettings(db, tenant.client.id)).toEqual({ holdMusicFileId: null, queueAnnouncementSeconds: 60 });
    await ds.query(`INSERT INTO voice_settings (client_id, queue_announcement_seconds) VALUES ($1, 0)`, [tenant.client.id]);
    expect(await loadVoiceSettings(db, tenant.client.id)).toEqual({ holdMusicFileId: null, queueAnnouncementSeconds: 0 });
  });

  it('renders "you are number N" once per language and number as 8 kHz mono 16-bit speech', async () => {
    const announcements = new QueueAnnouncements(dir);
    const [a, b] = await Promise.all([announcements.path('en', 3), announcements.path('en', 3)]);
    expect(a).toBe(path.join(dir, 'en', '3.wav'));
    expect(b).toBe(a);
    const wav = readFileSync(a!);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.readUInt16LE(22)).toBe(1); // mono
    expect(wav.readUInt32LE(24)).toBe(8000);
    expect(wav.readUInt16LE(34)).toBe(16);
    expect(wav.length).toBeGreaterThan(8000); // more than half a second
    const spanish = await announcements.path('es', 12);
    expect(spanish).toBe(path.join(dir, 'es', '12.wav'));
    expect(readFileSync(spanish!).equals(wav)).toBe(false);
    expect(await announcements.path('en', 0)).toBeNull();
  });
});
