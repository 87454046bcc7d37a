import type { ConfigCrypto, OutgoingAddressPolicy } from '@centralita/contracts/server';
import type { DataSource } from 'typeorm';
import type { SipTransport, SipTrunk } from '../telephony/telephony';

/**
 * Where a campaign's calls go (trunk, caller id, call limit) and where a connected call is bridged
 * (the agent's softphone registration). The decisions are pure functions; the two `resolve…`
 * functions read the tenant's admin data (trunks, softphone_accounts, softphone_configs) that the
 * API writes.
 */

export type TelephonyKind = 'simulator' | 'drachtio';

/** Where the simulator "sends" calls when the campaign has no trunk: the demo and tests need none. */
export const SIMULATOR_TRUNK: SipTrunk = { host: 'simulator.invalid', port: 5060, transport: 'udp' };
/** The simulator's caller id when neither the campaign nor its trunk has one. */
export const SIMULATOR_CALLER_ID = '+10000000000';

/** Why a campaign's calls cannot be placed (logged by the dialer, and the `reason` of a call failed for it). */
export type RouteRefusal =
  | 'dialer.noTrunk'
  | 'dialer.trunkUnavailable'
  | 'dialer.trunkUnreadable'
  | 'dialer.trunkTransportUnsupported'
  | 'dialer.trunkAddressRefused'
  | 'dialer.noCallerId';

/** Why a connected call cannot be bridged to its agent. */
export type AgentRefusal = 'dialer.noSoftphoneAccount' | 'dialer.noSoftphoneConfig';

/** The campaign's trunk as the dialer uses it: credentials decrypted, never logged. */
export interface CampaignTrunk {
  id: string;
  sip: SipTrunk;
  callerId: string | null;
  maxConcurrentCalls: number | null;
}

export type TrunkLookup =
  /** The campaign names no trunk. */
  | { status: 'none' }
  /** Named but deleted, inactive or not the tenant's. */
  | { status: 'unavailable'; trunkId: string }
  /** Its password cannot be decrypted (another CONFIG_ENCRYPTION_KEY than the API's). */
  | { status: 'unreadable'; trunkId: string; error: string }
  /** A transport the dialer's telephony does not speak (trunks may say ws/wss for other uses). */
  | { status: 'unsupported'; trunkId: string; transport: string }
  | { status: 'found'; trunk: CampaignTrunk };

export type DialingRoute =
  | { ok: true; trunk: SipTrunk; trunkId: string | null; from: string; maxConcurrentCalls: number | null }
  | { ok: false; code: RouteRefusal; message: string };

interface TrunkRow {
  id: string;
  host: string;
  port: number;
  transport: string;
  username: string | null;
  password_encrypted: string | null;
  caller_id: string | null;
  max_concurrent_calls: number | null;
}

const DIALLABLE_TRANSPORTS: readonly SipTransport[] = ['udp', 'tcp', 'tls'];

/** The tenant's active, not deleted trunk `trunkId`, password decrypted with the API's key. */
export async function resolveCampaignTrunk(
  db: DataSource,
  crypto: Pick<ConfigCrypto, 'decrypt'>,
  tenantId: string,
  trunkId: string | null,
): Promise<TrunkLookup> {
  if (!trunkId) return { status: 'none' };
  const [row] = (await db.query(
    `SELECT id, host, port, transport, username, password_encrypted, caller_id, max_concurrent_calls
       FROM trunks WHERE id = $1 AND client_id = $2 AND deleted_at IS NULL AND active = true`,
    [trunkId, tenantId],
  )) as TrunkRow[];
  if (!row) return { status: 'unavailable', trunkId };
  if (!DIALLABLE_TRANSPORTS.includes(row.transport as SipTransport)) return { status: 'unsupported', trunkId, transport: row.transport };
  let password: string | undefined;
  try {
    password = row.password_encrypted === null ? undefined : crypto.decrypt(row.password_encrypted);
  } catch (error) {
    return { status: 'unreadable', trunkId, error: (error as Error).message };
  }
  const sip: SipTrunk = { host: row.host, port: row.port, transport: row.transport as SipTransport };
  if (row.username) sip.username = row.username;
  // A username without a password (or the reverse) cannot answer a digest challenge: send neither.
  if (row.username && password !== undefined) sip.password = password;
  else delete sip.username;
  return {
    status: 'found',
    trunk: { id: row.id, sip, callerId: row.caller_id, maxConcurrentCalls: row.max_concurrent_calls },
  };
}

/**
 * The trunk and caller id a campaign dials with. The simulator always gets a trunk (the campaign's
 * if usable, else SIMULATOR_TRUNK) so campaigns without one keep working in demos and tests; a
 * real carrier (drachtio) needs the campaign's usable trunk and a caller id (the campaign's, else
 * the trunk's), otherwise the campaign is refused with a code.
 */
export function chooseRoute(kind: TelephonyKind, campaignCallerId: string | null, lookup: TrunkLookup): DialingRoute {
  const campaignFrom = campaignCallerId?.trim() || null;
  if (lookup.status === 'found') {
    const from = campaignFrom ?? lookup.trunk.callerId?.trim() ?? null;
    if (from)
      return { ok: true, trunk: lookup.trunk.sip, trunkId: lookup.trunk.id, from, maxConcurrentCalls: lookup.trunk.maxConcurrentCalls };
    if (kind === 'simulator')
      return {
        ok: true,
        trunk: lookup.trunk.sip,
        trunkId: lookup.trunk.id,
        from: SIMULATOR_CALLER_ID,
        maxConcurrentCalls: lookup.trunk.maxConcurrentCalls,
      };
    return {
      ok: false,
      code: 'dialer.noCallerId',
      message: `neither the campaign nor its trunk ${lookup.trunk.id} has a caller id`,
    };
  }
  if (kind === 'simulator')
    return { ok: true, trunk: SIMULATOR_TRUNK, trunkId: null, from: campaignFrom ?? SIMULATOR_CALLER_ID, maxConcurrentCalls: null };
  switch (lookup.status) {
    case 'none':
      return { ok: false, code: 'dialer.noTrunk', message: 'the campaign has no trunk (TELEPHONY=drachtio needs one)' };
    case 'unavailable':
      return { ok: false, code: 'dialer.trunkUnavailable', message: `trunk ${lookup.trunkId} is deleted, inactive or not the tenant's` };
    case 'unreadable':
      return {
        ok: false,
        code: 'dialer.trunkUnreadable',
        message: `the password of trunk ${lookup.trunkId} cannot be decrypted (is CONFIG_ENCRYPTION_KEY the API's?): ${lookup.error}`,
      };
    case 'unsupported':
      return {
        ok: false,
        code: 'dialer.trunkTransportUnsupported',
        message: `trunk ${lookup.trunkId} uses ${lookup.transport}; the dialer places calls over udp, tcp or tls`,
      };
  }
}

/**
 * A real carrier connects to the trunk: its host is resolved now and EVERY address checked against
 * the outgoing-address policy (loopback, link-local, private… refused unless the operator allows
 * the range). A refused or unresolvable host refuses the campaign like a missing trunk, so no
 * contact's attempt is spent on it; otherwise the first checked address is pinned on the trunk
 * and the INVITE goes there.
 */
export async function pinTrunkAddress(outgoing: Pick<OutgoingAddressPolicy, 'resolve'>, route: DialingRoute): Promise<DialingRoute> {
  if (!route.ok) return route;
  try {
    const [first] = await outgoing.resolve(route.trunk.host);
    return { ...route, trunk: { ...route.trunk, address: first.address } };
  } catch (error) {
    return {
      ok: false,
      code: 'dialer.trunkAddressRefused',
      message: `trunk ${route.trunkId ?? route.trunk.host}: ${(error as Error).message}`,
    };
  }
}

export type AgentTarget = { ok: true; uri: string } | { ok: false; code: AgentRefusal; message: string };

/** Characters a SIP URI's user part may carry unescaped (RFC 3261 `user`: unreserved / user-unreserved). */
const SIP_USER_SAFE = /[A-Za-z0-9\-_.!~*'()&=+$,;?/]/;

/** `sip:<auth_user>@<domain>`: the address the agent's softphone registers (the registrar routes INVITEs to it). */
export function agentSipUri(authUser: string, domain: string): string {
  const user = [...authUser.trim()]
    .map((char) =>
      SIP_USER_SAFE.test(char)
        ? char
        : [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
    )
    .join('');
  return `sip:${user}@${domain.trim()}`;
}

/** Simulated agents do not register: the simulator only records where a call was bridged. */
export function simulatedAgentUri(agentId: string): string {
  return `sip:${agentId}@agents.invalid`;
}

/** The agent's softphone registration in the tenant (account + the tenant's SIP domain). */
export async function resolveAgentTarget(db: DataSource, tenantId: string, agentId: string): Promise<AgentTarget> {
  const [row] = (await db.query(
    `SELECT a.auth_user, c.domain FROM softphone_accounts a LEFT JOIN softphone_configs c ON c.client_id = a.client_id
      WHERE a.user_id = $1 AND a.client_id = $2`,
    [agentId, tenantId],
  )) as { auth_user: string; domain: string | null }[];
  if (!row || !row.auth_user?.trim())
    return { ok: false, code: 'dialer.noSoftphoneAccount', message: `agent ${agentId} has no softphone account` };
  if (!row.domain?.trim())
    return { ok: false, code: 'dialer.noSoftphoneConfig', message: `the tenant has no softphone configuration (SIP domain)` };
  return { ok: true, uri: agentSipUri(row.auth_user, row.domain) };
}
