import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { isSourceCidr } from '@centralita/contracts';
import type { ResolvedInboundNumber } from './inbound-numbers';

/** Resolves a trunk host name to its addresses (dns.lookup: /etc/hosts and the system resolver). */
export type HostResolver = (host: string) => Promise<string[]>;

const systemResolver: HostResolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** "::ffff:203.0.113.10" (an IPv4 peer on a dual-stack socket) is 203.0.113.10. */
function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

function blockListOf(entries: string[]): BlockList {
  const list = new BlockList();
  for (const raw of entries) {
    const entry = raw.trim();
    if (!isSourceCidr(entry)) continue; // refused by the API's validation; never let one bad row open the trunk
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const plain = plainAddress(address.replace(/^\[|\]$/g, ''));
    const family = isIP(plain) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(plain, family);
    else list.addSubnet(plain, Number(prefix), family);
  }
  return list;
}

/**
 * The carrier source check of an INVITE for a trunk's number (issue #22): whether `address` (the packet's or the
 * connection's source) may send calls for this trunk. A trunk with allowed sources accepts those addresses and networks
 * only; a trunk without them accepts its own host (an address, or every address its name resolves to now). A name that
 * does not resolve accepts nothing. A number without trunk data (test stand-ins) is not checked.
 */
export async function carrierSourceAllowed(
  number: Pick<ResolvedInboundNumber, 'trunkHost' | 'allowedSources'>,
  address: string,
  resolve: HostResolver = systemResolver,
): Promise<boolean> {
  if (number.trunkHost === undefined && number.allowedSources === undefined) return true;
  const source = plainAddress(address);
  const family = isIP(source) === 6 ? 'ipv6' : isIP(source) === 4 ? 'ipv4' : null;
  if (!family) return false;
  let entries = number.allowedSources ?? [];
  if (!entries.length) {
    const host = (number.trunkHost ?? '').trim().replace(/^\[|\]$/g, '');
    if (!host) return false;
    entries = isIP(host) ? [host] : await resolve(host).catch(() => []);
  }
  return blockListOf(entries).check(source, family);
}
