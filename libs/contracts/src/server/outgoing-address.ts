import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { RuleIssue } from '../admin';

/**
 * Where the platform may connect to on a tenant's behalf (issue 17 §8): one policy for every
 * tenant-supplied host the API, the worker or the agents' browsers connect to (SIP trunks, the
 * softphone's WebSocket, STUN/TURN servers and SIP domain, IVR audio and branding URLs).
 *
 * - Refused: loopback, link-local (169.254.169.254 included), unspecified, multicast/broadcast,
 *   private and carrier-grade NAT (the platform's own networks), IPv6 unique-local, reserved and
 *   documentation ranges, and the IPv6 transition forms that embed an IPv4 address (6to4, Teredo,
 *   NAT64, IPv4-compatible), so `[::ffff:127.0.0.1]` or `2002:7f00:1::` are no way around it.
 * - The operator may allow ranges for the whole deployment (OUTGOING_ALLOWED_CIDRS, e.g. on-premises
 *   trunks on 10.20.0.0/16); never a tenant.
 * - Hosts are read the way the connecting code reads them: through the WHATWG URL host parser,
 *   which turns `0x7f000001`, `2130706433`, `0177.0.0.1`, `127.1`, full-width digits,
 *   percent-encoding and trailing dots into the canonical address before it is classified.
 * - Save time checks literal addresses (a name may not resolve yet); connect time (`resolve`)
 *   looks the name up, checks EVERY address it resolves to, and hands back the checked addresses
 *   so the caller connects to one of them, not to the name again (no DNS rebinding in between).
 */

export type OutgoingRefusalReason = 'loopback' | 'link-local' | 'private' | 'unspecified' | 'multicast' | 'reserved';

/** ipaddr.js range names → why the address is refused ('unicast' is the only public one). */
const RANGE_REASON: Record<string, OutgoingRefusalReason> = {
  loopback: 'loopback',
  linkLocal: 'link-local',
  private: 'private',
  carrierGradeNat: 'private',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'private',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'multicast',
};

/**
 * Ranges refused although some ipaddr.js versions call them unicast: IPv4-compatible IPv6
 * (`::127.0.0.1`), benchmarking, IPv6 site-local, discard and documentation prefixes.
 */
const EXTRA_REFUSED: ReadonlyArray<[string, OutgoingRefusalReason]> = [
  ['::/96', 'reserved'],
  ['198.18.0.0/15', 'reserved'],
  ['fec0::/10', 'private'],
  ['100::/64', 'reserved'],
  ['2001:2::/48', 'reserved'],
  ['2001:db8::/32', 'reserved'],
];

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseCidr(entry: string): Cidr {
  const text = entry.includes('/') ? entry : `${entry}/${entry.includes(':') ? 128 : 32}`;
  const [address, bits] = ipaddr.parseCIDR(text);
  return [unmap(address), address.kind() === 'ipv6' && isMapped(address) ? bits - 96 : bits];
}

function isMapped(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress();
}

/** `::ffff:a.b.c.d` is the IPv4 address a.b.c.d for every socket: classify it as that. */
function unmap(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return isMapped(address) ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

const EXTRA = EXTRA_REFUSED.map(([cidr, reason]) => [parseCidr(cidr), reason] as const);

function inCidr(address: ipaddr.IPv4 | ipaddr.IPv6, [network, bits]: Cidr): boolean {
  if (address.kind() !== network.kind()) return false;
  return address.kind() === 'ipv4'
    ? (address as ipaddr.IPv4).match(network as ipaddr.IPv4, bits)
    : (address as ipaddr.IPv6).match(network as ipaddr.IPv6, bits);
}

/**
 * OUTGOING_ALLOWED_CIDRS: a comma (or space) separated list of CIDRs or single addresses,
 * e.g. `10.20.0.0/16, 192.168.50.7, fd12:3456::/48`. Problems are pushed, not thrown, so the
 * API's and the worker's config loaders report every problem at once.
 */
export function parseAllowedCidrs(raw: string | undefined, problems: string[], name = 'OUTGOING_ALLOWED_CIDRS'): string[] {
  const entries = (raw ?? '')
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const maxBits = isIP(address) === 6 ? 128 : 32;
    const validBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    // Only canonical addresses: an operator setting is no place for 0x7f000001.
    if (!isIP(address) || !validBits || extra !== undefined) problems.push(`${name} entry "${entry}" is not an IP address or CIDR`);
  }
  return entries;
}

/** A host as the connecting code reads it: a canonical IP literal, or a lower-case name. */
export type ParsedHost = { kind: 'ip'; address: string } | { kind: 'name'; name: string };

/**
 * Reads a bare host (no scheme, no port, IPv6 with or without brackets) through the WHATWG URL
 * host parser; null when it is not a host at all (userinfo, paths, spaces…).
 */
export function parseHost(raw: string): ParsedHost | null {
  const value = raw.trim();
  if (!value || /[\s/\\@?#]/.test(value)) return null;
  const bracketed = value.startsWith('[') ? value : value.includes(':') ? `[${value}]` : value;
  let hostname: string;
  try {
    const url = new URL(`http://${bracketed}/`);
    if (url.port !== '' || url.username !== '' || url.password !== '') return null;
    hostname = url.hostname;
  } catch {
    return null;
  }
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname.replace(/\.$/, '');
  if (isIP(bare)) return { kind: 'ip', address: bare };
  return bare ? { kind: 'name', name: bare.toLowerCase() } : null;
}

export class OutgoingAddressError extends Error {
  constructor(
    readonly code: 'outgoing.refused' | 'outgoing.unresolvable',
    message: string,
    readonly host: string,
    readonly reason?: OutgoingRefusalReason,
  ) {
    super(message);
    this.name = 'OutgoingAddressError';
  }
}

/** What `resolve` hands back: addresses already checked, to connect to instead of the name. */
export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

export type HostLookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemLookup: HostLookup = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export interface OutgoingAddressPolicyOptions {
  /** Ranges the operator allows (OUTGOING_ALLOWED_CIDRS), already validated by parseAllowedCidrs. */
  allowedCidrs?: readonly string[];
  /** Name resolution (tests inject one); default the system resolver, as sockets use. */
  lookup?: HostLookup;
  /** Longest wait for a name to resolve. */
  lookupTimeoutMs?: number;
}

export class OutgoingAddressPolicy {
  private readonly allowed: Cidr[];
  private readonly lookup: HostLookup;
  private readonly lookupTimeoutMs: number;

  constructor(options: OutgoingAddressPolicyOptions = {}) {
    this.allowed = (options.allowedCidrs ?? []).map(parseCidr);
    this.lookup = options.lookup ?? systemLookup;
    this.lookupTimeoutMs = options.lookupTimeoutMs ?? 5000;
  }

  /** The operator's allowed ranges, canonical (for logs and start-up messages). */
  get allowedRanges(): string[] {
    return this.allowed.map(([network, bits]) => `${network.toString()}/${bits}`);
  }

  /** Why an IP literal may not be connected to; null when it may. */
  addressRefusal(address: string): OutgoingRefusalReason | null {
    if (!ipaddr.isValid(address)) return 'reserved';
    const ip = unmap(ipaddr.parse(address));
    if (this.allowed.some((cidr) => inCidr(ip, cidr))) return null;
    const range = ip.range();
    if (range !== 'unicast') return RANGE_REASON[range] ?? 'reserved';
    return EXTRA.find(([cidr]) => inCidr(ip, cidr))?.[1] ?? null;
  }

  /**
   * Why a host may not be saved: a refused literal address, or `localhost` (and its subdomains,
   * RFC 6761) which resolve to loopback by definition. Other names pass here and are checked
   * when connecting.
   */
  hostRefusal(host: ParsedHost): OutgoingRefusalReason | null {
    if (host.kind === 'ip') return this.addressRefusal(host.address);
    if (host.name === 'localhost' || host.name.endsWith('.localhost')) return this.allowsLoopback() ? null : 'loopback';
    return null;
  }

  /** Save-time issue of a bare host field (trunk host, SIP domain without its port). */
  hostIssue(field: string, raw: string): RuleIssue | null {
    const host = parseHost(raw);
    if (!host) return { field, key: 'pattern' };
    return this.refusalIssue(field, this.hostRefusal(host));
  }

  /**
   * Save-time issue of a URL field: an absolute URL with one of `schemes` whose host is allowed,
   * or (with `allowPath`) a path on the platform itself (`/logo.png`). Scheme-relative `//host`
   * and backslashes (which browsers read as slashes) are refused as malformed.
   */
  urlIssue(field: string, raw: string, options: { schemes: readonly string[]; allowPath?: boolean }): RuleIssue | null {
    const value = raw.trim();
    if (value.includes('\\') || /\s/.test(value)) return { field, key: 'pattern' };
    if (value.startsWith('/')) return options.allowPath && !value.startsWith('//') ? null : { field, key: 'pattern' };
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return { field, key: 'pattern' };
    }
    if (!options.schemes.includes(url.protocol.replace(/:$/, '')) || !url.hostname) return { field, key: 'pattern' };
    const host = parseHost(url.hostname);
    if (!host) return { field, key: 'pattern' };
    return this.refusalIssue(field, this.hostRefusal(host));
  }

  /** Save-time issue of an ICE server URI (RFC 7064/7065: `stun:host[:port]`, `turn[s]:host[:port][?transport=udp|tcp]`). */
  iceServerIssue(field: string, raw: string): RuleIssue | null {
    const match = /^(?:stuns?|turns?):(\[[0-9a-fA-F:.]+\]|[^\s:/?#@[\]\\]+)(?::(\d{1,5}))?(?:\?transport=(?:udp|tcp))?$/i.exec(raw.trim());
    if (!match || (match[2] !== undefined && Number(match[2]) > 65535)) return { field, key: 'pattern' };
    return this.hostIssue(field, match[1]);
  }

  /**
   * Connect time: the addresses `host` resolves to, every one of them checked. Throws
   * OutgoingAddressError when the name does not resolve or ANY address is refused (a name that
   * resolves to one public and one private address is refused: the resolver may pick either).
   * Connect to one of the returned addresses, never to the name again.
   */
  async resolve(rawHost: string): Promise<CheckedAddress[]> {
    const host = parseHost(rawHost);
    if (!host) throw new OutgoingAddressError('outgoing.refused', `"${rawHost}" is not a host name or IP address`, rawHost);
    const refuse = (reason: OutgoingRefusalReason, address: string) =>
      new OutgoingAddressError(
        'outgoing.refused',
        `${rawHost}${address === rawHost ? '' : ` (${address})`} is a ${reason} address: outgoing connections to it are refused`,
        rawHost,
        reason,
      );
    if (host.kind === 'ip') {
      const reason = this.addressRefusal(host.address);
      if (reason) throw refuse(reason, host.address);
      return [{ address: host.address, family: isIP(host.address) as 4 | 6 }];
    }
    const nameReason = this.hostRefusal(host);
    if (nameReason) throw refuse(nameReason, host.name);
    let timer: NodeJS.Timeout | undefined;
    const answers = await Promise.race([
      this.lookup(host.name),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${this.lookupTimeoutMs} ms`)), this.lookupTimeoutMs);
      }),
    ])
      .catch((error: Error) => {
        throw new OutgoingAddressError('outgoing.unresolvable', `${rawHost} does not resolve: ${error.message}`, rawHost);
      })
      .finally(() => clearTimeout(timer));
    if (!answers.length) throw new OutgoingAddressError('outgoing.unresolvable', `${rawHost} does not resolve to any address`, rawHost);
    const checked: CheckedAddress[] = [];
    for (const answer of answers) {
      const parsed = parseHost(answer.address);
      if (!parsed || parsed.kind !== 'ip') throw refuse('reserved', answer.address);
      const ip = unmap(ipaddr.parse(parsed.address));
      const address = ip.toString();
      const reason = this.addressRefusal(address);
      if (reason) throw refuse(reason, address);
      checked.push({ address, family: ip.kind() === 'ipv4' ? 4 : 6 });
    }
    return checked;
  }

  private allowsLoopback(): boolean {
    return this.addressRefusal('127.0.0.1') === null;
  }

  private refusalIssue(field: string, reason: OutgoingRefusalReason | null): RuleIssue | null {
    return reason ? { field, key: 'blockedAddress', values: { reason } } : null;
  }
}
