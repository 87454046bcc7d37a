import { randomInt, randomUUID } from 'node:crypto';
import type { IvrTree } from '@centralita/contracts';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../../api/src/database/data-source';
import { createTenant, type TestTenant } from '../../../api/test/support/factories';
import { createLine } from '../../../api/test/support/realtime';
import { loadPublishedIvr, resolveInboundNumber, type VoiceDb } from './inbound-numbers';

const tree: IvrTree = {
  rootNodeId: 'main',
  nodes: [
    {
      id: 'main',
      name: 'Main',
      promptText: 'Pulse uno',
      promptAudioUrl: null,
      promptAudioFileId: null,
      timeoutSeconds: 5,
      maxRetries: 2,
      fallback: { type: 'hangup', targetId: null },
      options: [{ digit: '1', label: null, destination: { type: 'hangup', targetId: null } }],
    },
  ],
};

/** A number no other suite uses (the column is unique platform-wide). */
const freshNumber = () => `+3491${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;

describe('inbound-numbers (voice server look-ups)', () => {
  let ds: DataSource;
  let db: VoiceDb;
  let tenant: TestTenant;
  let trunkId: string;

  const insertIvr = async (t: TestTenant, fields: { published?: boolean; active?: boolean; language?: string } = {}) => {
    const [row] = await ds.query(
      `INSERT INTO ivrs (client_id, name, draft_tree, published_tree, published_version, active, language)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [
        t.client.id,
        `IVR ${randomUUID().slice(0, 8)}`,
        JSON.stringify(tree),
        fields.published === false ? null : JSON.stringify(tree),
        fields.published === false ? 0 : 3,
        fields.active ?? true,
        fields.language ?? 'en',
      ],
    );
    return row.id as string;
  };
  /** What the carrier source check reads: the trunk's host and its allowed sources (none by default). */
  const TRUNK_SOURCE = { trunkHost: 'sip.example.com', allowedSources: [] as string[] };
  const insertTrunk = async (t: TestTenant) => {
    const [row] = await ds.query(
      `INSERT INTO trunks (client_id, name, host, port, transport, max_concurrent_calls) VALUES ($1, $2, 'sip.example.com', 5060, 'udp', 10) RETURNING id`,
      [t.client.id, `Trunk ${randomUUID().slice(0, 8)}`],
    );
    return row.id as string;
  };
  const insertNumber = async (t: TestTenant, trunk: string, number: string, target: { ivrId?: string; lineId?: string }) => {
    await ds.query(
      `INSERT INTO trunk_inbound_numbers (client_id, trunk_id, number, ivr_id, attention_line_id) VALUES ($1, $2, $3, $4, $5)`,
      [t.client.id, trunk, number, target.ivrId ?? null, target.lineId ?? null],
    );
  };

  beforeAll(async () => {
    ds = createDataSource(process.env.DATABASE_URL!);
    await ds.initialize();
    db = { query: (sql, params) => ds.query(sql, params) };
    tenant = await createTenant(ds);
    await ds.query(`UPDATE clients SET language = 'de' WHERE id = $1`, [tenant.client.id]);
    trunkId = await insertTrunk(tenant);
  });
  afterAll(() => ds.destroy());

  it('finds the tenant, trunk and IVR of a number written with or without "+" and with spaces', async () => {
    const ivrId = await insertIvr(tenant, { language: 'it' });
    const number = freshNumber();
    await insertNumber(tenant, trunkId, number, { ivrId });
    const expected = { tenantId: tenant.client.id, trunkId, number, ivrId, attentionLineId: null, language: 'it', ...TRUNK_SOURCE };
    expect(await resolveInboundNumber(db, number)).toEqual(expected);
    expect(await resolveInboundNumber(db, number.slice(1))).toEqual(expected);
    const spaced = `${number.slice(0, 3)} ${number.slice(3, 6)} ${number.slice(6)}`;
    expect(await resolveInboundNumber(db, spaced)).toEqual(expected);
  });

  it("answers a number sent to a line with the tenant's language", async () => {
    const lineId = await createLine(ds, tenant, `Voice ${randomUUID().slice(0, 8)}`);
    const number = freshNumber();
    await insertNumber(tenant, trunkId, number, { lineId });
    expect(await resolveInboundNumber(db, number)).toEqual({
      tenantId: tenant.client.id,
      trunkId,
      number,
      ivrId: null,
      attentionLineId: lineId,
      language: 'de',
      ...TRUNK_SOURCE,
    });
  });

  it('answers null for an unknown number, a non-number, and a number whose trunk is inactive or deleted', async () => {
    expect(await resolveInboundNumber(db, freshNumber())).toBeNull();
    expect(await resolveInboundNumber(db, 'anonymous')).toBeNull();
    expect(await resolveInboundNumber(db, '')).toBeNull();
    const ivrId = await insertIvr(tenant);
    const inactive = await insertTrunk(tenant);
    const deleted = await insertTrunk(tenant);
    const [a, b] = [freshNumber(), freshNumber()];
    await insertNumber(tenant, inactive, a, { ivrId });
    await insertNumber(tenant, deleted, b, { ivrId });
    expect(await resolveInboundNumber(db, a)).not.toBeNull();
    await ds.query(`UPDATE trunks SET active = false WHERE id = $1`, [inactive]);
    await ds.query(`UPDATE trunks SET deleted_at = now() WHERE id = $1`, [deleted]);
    expect(await resolveInboundNumber(db, a)).toBeNull();
    expect(await resolveInboundNumber(db, b)).toBeNull();
  });

  it("reads a national-format called number with the country code and national prefix of the number's trunk", async () => {
    const ivrId = await insertIvr(tenant, { language: 'en' });
    const ukTrunk = await insertTrunk(tenant);
    await ds.query(`UPDATE trunks SET country_code = '44', national_prefix = '0' WHERE id = $1`, [ukTrunk]);
    const subscriber = `20${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
    const number = `+44${subscriber}`;
    await insertNumber(tenant, ukTrunk, number, { ivrId });
    const expected = {
      tenantId: tenant.client.id,
      trunkId: ukTrunk,
      number,
      ivrId,
      attentionLineId: null,
      language: 'en',
      ...TRUNK_SOURCE,
    };
    expect(await resolveInboundNumber(db, `0${subscriber}`)).toEqual(expected);
    expect(await resolveInboundNumber(db, `0${subscriber.slice(0, 2)} ${subscriber.slice(2, 6)} ${subscriber.slice(6)}`)).toEqual(expected);
    expect(await resolveInboundNumber(db, `0044${subscriber}`)).toEqual(expected);
    // Without the trunk's national prefix it is not that number.
    expect(await resolveInboundNumber(db, subscriber)).toBeNull();

    // A trunk without a country code matches only E.164, whatever other trunks say.
    const plainSubscriber = `20${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
    await insertNumber(tenant, trunkId, `+44${plainSubscriber}`, { ivrId });
    expect(await resolveInboundNumber(db, `0${plainSubscriber}`)).toBeNull();
    expect(await resolveInboundNumber(db, `+44${plainSubscriber}`)).not.toBeNull();

    // An inactive trunk's rule is not used.
    await ds.query(`UPDATE trunks SET active = false WHERE id = $1`, [ukTrunk]);
    expect(await resolveInboundNumber(db, `0${subscriber}`)).toBeNull();
  });

  it("answers the trunk's host and allowed sources for the carrier source check", async () => {
    const sourcesTrunk = await insertTrunk(tenant);
    await ds.query(`UPDATE trunks SET allowed_sources = $2 WHERE id = $1`, [sourcesTrunk, ['203.0.113.10', '198.51.100.0/24']]);
    const ivrId = await insertIvr(tenant);
    const number = freshNumber();
    await insertNumber(tenant, sourcesTrunk, number, { ivrId });
    expect(await resolveInboundNumber(db, number)).toMatchObject({
      trunkId: sourcesTrunk,
      trunkHost: 'sip.example.com',
      allowedSources: ['203.0.113.10', '198.51.100.0/24'],
    });
  });

  it('answers null when the IVR or line the number goes to was deleted', async () => {
    const ivrId = await insertIvr(tenant);
    const lineId = await createLine(ds, tenant, `Gone ${randomUUID().slice(0, 8)}`);
    const [a, b] = [freshNumber(), freshNumber()];
    await insertNumber(tenant, trunkId, a, { ivrId });
    await insertNumber(tenant, trunkId, b, { lineId });
    await ds.query(`UPDATE ivrs SET deleted_at = now() WHERE id = $1`, [ivrId]);
    await ds.query(`UPDATE attention_lines SET deleted_at = now() WHERE id = $1`, [lineId]);
    expect(await resolveInboundNumber(db, a)).toBeNull();
    expect(await resolveInboundNumber(db, b)).toBeNull();
  });

  it('refuses the same number twice, even for another tenant, and a row with both or neither target', async () => {
    const other = await createTenant(ds);
    const otherTrunk = await insertTrunk(other);
    const otherIvr = await insertIvr(other);
    const number = freshNumber();
    await insertNumber(tenant, trunkId, number, { ivrId: await insertIvr(tenant) });
    await expect(insertNumber(other, otherTrunk, number, { ivrId: otherIvr })).rejects.toThrow(/uq_trunk_inbound_numbers_number/);
    const lineId = await createLine(ds, other, `Both ${randomUUID().slice(0, 8)}`);
    await expect(insertNumber(other, otherTrunk, freshNumber(), { ivrId: otherIvr, lineId })).rejects.toThrow(
      /ck_trunk_inbound_numbers_target/,
    );
    await expect(insertNumber(other, otherTrunk, freshNumber(), {})).rejects.toThrow(/ck_trunk_inbound_numbers_target/);
  });
});

describe(loadPublishedIvr.name, () => {
  let ds: DataSource;
  let db: VoiceDb;
  let tenant: TestTenant;

  beforeAll(async () => {
    ds = createDataSource(process.env.DATABASE_URL!);
    await ds.initialize();
    db = { query: (sql, params) => ds.query(sql, params) };
    tenant = await createTenant(ds);
  });
  afterAll(() => ds.destroy());

  const insert = async (t: TestTenant, published: boolean, active = true) => {
    const [row] = await ds.query(
      `INSERT INTO ivrs (client_id, name, draft_tree, published_tree, published_version, active, language)
       VALUES ($1, $2, $3, $4, $5, $6, 'el') RETURNING id`,
      [
        t.client.id,
        `IVR ${randomUUID().slice(0, 8)}`,
        JSON.stringify(tree),
        published ? JSON.stringify(tree) : null,
        published ? 4 : 0,
        active,
      ],
    );
    return row.id as string;
  };

  it('answers the published tree, its version and language', async () => {
    const id = await insert(tenant, true);
    expect(await loadPublishedIvr(db, tenant.client.id, id)).toEqual({ tree, version: 4, language: 'el' });
  });

  it("answers null for another tenant's IVR, an unpublished, inactive or deleted one, and a malformed id", async () => {
    const other = await createTenant(ds);
    const foreign = await insert(other, true);
    expect(await loadPublishedIvr(db, tenant.client.id, foreign)).toBeNull();
    expect(await loadPublishedIvr(db, tenant.client.id, await insert(tenant, false))).toBeNull();
    expect(await loadPublishedIvr(db, tenant.client.id, await insert(tenant, true, false))).toBeNull();
    const deleted = await insert(tenant, true);
    await ds.query(`UPDATE ivrs SET deleted_at = now() WHERE id = $1`, [deleted]);
    expect(await loadPublishedIvr(db, tenant.client.id, deleted)).toBeNull();
    expect(await loadPublishedIvr(db, tenant.client.id, 'not-a-uuid')).toBeNull();
  });
});
