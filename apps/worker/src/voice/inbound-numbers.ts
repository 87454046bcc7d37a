import { LANGUAGES, nationalToE164, normalizeInboundNumber, type IvrTree, type Language } from '@centralita/contracts';

/**
 * What the voice server needs from the database to answer a call, without Nest: the tenant and
 * route of a called number, and the published tree of an IVR. `db` is anything that runs one
 * statement with positional parameters and answers its rows (a pg Pool wrapper, TypeORM's
 * DataSource.query).
 */
export interface VoiceDb {
  query(sql: string, params: unknown[]): Promise<any[]>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface ResolvedInboundNumber {
  tenantId: string;
  trunkId: string;
  /** As stored: E.164 with "+". */
  number: string;
  ivrId: string | null;
  attentionLineId: string | null;
  /** The IVR's language when the number goes to an IVR, else the tenant's (what the caller is spoken to in). */
  language: Language; /**
   * The carrier source check (source-check.ts): the trunk's host and its allowed source addresses / CIDR networks (empty:
   * the host only). Absent (stand-ins in tests): no check.
   */
  trunkHost?: string;
  allowedSources?: string[];
}

export interface PublishedIvr {
  tree: IvrTree;
  version: number;
  language: Language;
}

const language = (value: unknown): Language => ((LANGUAGES as readonly string[]).includes(String(value)) ? (value as Language) : 'es');

/**
 * The tenant and route of a called number (a Request-URI or To user part: "+34911234567",
 * "34911234567", "+34 911 23 45 67"), or null when no active trunk of any tenant answers it, or
 * what it points at has been deleted. A number that matches nothing as E.164 is read in national
 * format ("020 7946 0000", "0034…") with the country code and national prefix of each trunk that has
 * them: it matches a number of a trunk whose own rule turns it into that number.
 */
export async function resolveInboundNumber(db: VoiceDb, calledNumber: string): Promise<ResolvedInboundNumber | null> {
  const number = normalizeInboundNumber(calledNumber ?? '');
  const exact = number ? await findInboundNumber(db, number, null) : null;
  if (exact || (calledNumber ?? '').trim().startsWith('+')) return exact;
  const rules = (await db.query(
    `SELECT DISTINCT country_code, national_prefix FROM trunks WHERE deleted_at IS NULL AND active AND country_code IS NOT NULL`,
    [],
  )) as { country_code: string; national_prefix: string | null }[];
  // "00…" reads the same whatever the trunk: tried once, with no trunk rule required.
  const international = nationalToE164(calledNumber, { countryCode: null, nationalPrefix: null });
  if (international && international !== number) {
    const found = await findInboundNumber(db, international, null);
    if (found) return found;
  }
  for (const rule of rules) {
    const national = nationalToE164(calledNumber, { countryCode: rule.country_code, nationalPrefix: rule.national_prefix });
    if (!national || national === number || national === international) continue;
    const found = await findInboundNumber(db, national, rule);
    if (found) return found;
  }
  return null;
}

/** The live number row for an E.164 `number`; with `rule`, only on a trunk with that country code and national prefix. */
async function findInboundNumber(
  db: VoiceDb,
  number: string,
  rule: { country_code: string; national_prefix: string | null } | null,
): Promise<ResolvedInboundNumber | null> {
  const rows = await db.query(
    `SELECT n.client_id AS tenant_id, n.trunk_id, n.number, n.ivr_id, n.attention_line_id,
            COALESCE(i.language, c.language) AS language, t.host AS trunk_host, t.allowed_sources
       FROM trunk_inbound_numbers n
       JOIN trunks t ON t.id = n.trunk_id AND t.client_id = n.client_id AND t.deleted_at IS NULL AND t.active
       JOIN clients c ON c.id = n.client_id
       LEFT JOIN ivrs i ON i.id = n.ivr_id AND i.client_id = n.client_id AND i.deleted_at IS NULL
       LEFT JOIN attention_lines l ON l.id = n.attention_line_id AND l.client_id = n.client_id AND l.deleted_at IS NULL
      WHERE n.number = $1 AND (i.id IS NOT NULL OR l.id IS NOT NULL)
        AND ($2::text IS NULL OR (t.country_code = $2 AND COALESCE(t.national_prefix, '') = COALESCE($3, '')))`,
    [number, rule?.country_code ?? null, rule?.national_prefix ?? null],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    tenantId: String(row.tenant_id),
    trunkId: String(row.trunk_id),
    number: String(row.number),
    ivrId: row.ivr_id ? String(row.ivr_id) : null,
    attentionLineId: row.attention_line_id ? String(row.attention_line_id) : null,
    language: language(row.language),
    trunkHost: String(row.trunk_host),
    allowedSources: Array.isArray(row.allowed_sources) ? (row.allowed_sources as unknown[]).map(String) : [],
  };
}

/**
 * The published tree of one of the tenant's IVRs (what a call walks), or null when the IVR does
 * not exist in that tenant, was deleted, is inactive or was never published.
 */
export async function loadPublishedIvr(db: VoiceDb, tenantId: string, ivrId: string): Promise<PublishedIvr | null> {
  const rows = await db.query(
    `SELECT published_tree, published_version, language FROM ivrs
      WHERE id::text = $1 AND client_id::text = $2 AND deleted_at IS NULL AND active AND published_tree IS NOT NULL`,
    [ivrId, tenantId],
  );
  const row = rows[0];
  if (!row) return null;
  const tree = typeof row.published_tree === 'string' ? (JSON.parse(row.published_tree) as IvrTree) : (row.published_tree as IvrTree);
  return { tree, version: Number(row.published_version), language: language(row.language) };
}
