/** The little SDP reading the voice server needs: which G.711 codec and telephone-event payload type the caller offers. */
export interface OfferedAudio {
  /** 0 (PCMU) or 8 (PCMA): the caller's first G.711 payload type. */
  codec: { payloadType: number; name: 'PCMU' | 'PCMA' };
  /** The caller's RFC 4733 telephone-event payload type at 8000 Hz, null when not offered (then SIP INFO carries the keys). */
  telephoneEvent: number | null;
}

/** Reads the first audio m-line of an SDP offer; null when it offers no PCMU/PCMA (the call is refused with 488). */
export function readAudioOffer(sdp: string): OfferedAudio | null {
  const lines = sdp.split(/\r?\n/);
  const start = lines.findIndex((line) => line.startsWith('m=audio '));
  if (start < 0) return null;
  const end = lines.findIndex((line, index) => index > start && line.startsWith('m='));
  const section = lines.slice(start, end < 0 ? undefined : end);
  const payloads = section[0]!.split(' ').slice(3).map(Number);
  const rtpmap = new Map<number, string>();
  for (const line of section) {
    const match = /^a=rtpmap:(\d+) ([^/\s]+)\/(\d+)/.exec(line);
    if (match) rtpmap.set(Number(match[1]), `${match[2]!.toUpperCase()}/${match[3]}`);
  }
  // Static payload types 0 and 8 need no rtpmap (RFC 3551); dynamic ones are named by theirs.
  const nameOf = (pt: number): string | undefined => rtpmap.get(pt) ?? (pt === 0 ? 'PCMU/8000' : pt === 8 ? 'PCMA/8000' : undefined);
  let codec: OfferedAudio['codec'] | null = null;
  for (const pt of payloads) {
    const name = nameOf(pt);
    if (name === 'PCMU/8000' || name === 'PCMA/8000') {
      codec = { payloadType: pt, name: name.slice(0, 4) as 'PCMU' | 'PCMA' };
      break;
    }
  }
  if (!codec) return null;
  const telephoneEvent = payloads.find((pt) => nameOf(pt) === 'TELEPHONE-EVENT/8000') ?? null;
  return { codec, telephoneEvent };
}

/**
 * The platform side's SDP handed to rtpengine as the "callee" answer: one G.711 codec and telephone-event with the
 * caller's payload types, so rtpengine's answer to the caller carries exactly those. Its address is the server's media
 * sink (a UDP socket that discards what the caller says until an agent leg replaces it).
 */
export function platformAnswerSdp(offer: OfferedAudio, sink: { address: string; port: number }, sessionVersion: number): string {
  const pts = [offer.codec.payloadType, ...(offer.telephoneEvent !== null ? [offer.telephoneEvent] : [])];
  return [
    'v=0',
    `o=centralita ${sessionVersion} ${sessionVersion} IN IP4 ${sink.address}`,
    's=centralita',
    `c=IN IP4 ${sink.address}`,
    't=0 0',
    `m=audio ${sink.port} RTP/AVP ${pts.join(' ')}`,
    `a=rtpmap:${offer.codec.payloadType} ${offer.codec.name}/8000`,
    ...(offer.telephoneEvent !== null
      ? [`a=rtpmap:${offer.telephoneEvent} telephone-event/8000`, `a=fmtp:${offer.telephoneEvent} 0-16`]
      : []),
    'a=ptime:20',
    'a=sendrecv',
    '',
  ].join('\r\n');
}

/**
 * rtpengine's offer toward the agent turned into the answer to the agent's own (re-)offer: the direction is the mirror
 * of the agent's (sendonly → recvonly, inactive stays inactive), and an offer's DTLS a=setup:actpass becomes passive,
 * so the browser stays the DTLS client it already is (the DTLS session is kept, not renegotiated).
 */
export function answerToAgentOffer(offer: string, agentSdp: string): string {
  const agentDirection = /^a=(sendrecv|sendonly|recvonly|inactive)\s*$/m.exec(agentSdp)?.[1] ?? 'sendrecv';
  const direction = { sendrecv: 'sendrecv', sendonly: 'recvonly', recvonly: 'sendonly', inactive: 'inactive' }[agentDirection];
  const eol = offer.includes('\r\n') ? '\r\n' : '\n';
  const lines = offer
    .split(/\r?\n/)
    .filter((line) => !/^a=(sendrecv|sendonly|recvonly|inactive)\s*$/.test(line))
    .map((line) => (/^a=setup:actpass\s*$/.test(line) ? 'a=setup:passive' : line));
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return [...lines, `a=${direction}`, ''].join(eol);
}
