import { createSocket, type Socket } from 'node:dgram';

/** RFC 4733 event codes (0-9, 10 = *, 11 = #) as IVR keys; A-D (12-15) and anything else are ignored. */
export function dtmfEventToDigit(event: number): string | null {
  if (Number.isInteger(event) && event >= 0 && event <= 9) return String(event);
  if (event === 10) return '*';
  if (event === 11) return '#';
  return null;
}

export interface RtpengineDtmf {
  /** rtpengine's call-id (the voice server's callId). */
  callId: string;
  /** The tag of the party that sent the event. */
  sourceTag: string;
  digit: string;
}

/**
 * Receives rtpengine's DTMF log (`--dtmf-log-dest=<host:port>`): one JSON datagram per completed RFC 4733 event,
 * e.g. {"callid":"…","source_tag":"caller","type":"DTMF","event":5,"duration":140,…}. rtpengine decodes the events
 * with the payload type negotiated in the SDP and reports each event once, however many end packets the caller sent
 * (measured with rtpengine 10.5: three end packets → one datagram).
 */
export class DtmfListener {
  private socket: Socket | null = null;

  constructor(private readonly onDigit: (dtmf: RtpengineDtmf) => void) {}

  async listen(host: string, port: number): Promise<{ address: string; port: number }> {
    const socket = createSocket('udp4');
    socket.on('message', (message) => {
      let data: { callid?: unknown; source_tag?: unknown; type?: unknown; event?: unknown };
      try {
        data = JSON.parse(message.toString('utf8'));
      } catch {
        return;
      }
      if (data.type !== undefined && data.type !== 'DTMF') return;
      const digit = dtmfEventToDigit(Number(data.event));
      if (typeof data.callid !== 'string' || digit === null) return;
      this.onDigit({ callId: data.callid, sourceTag: String(data.source_tag ?? ''), digit });
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    socket.on('error', () => undefined);
    this.socket = socket;
    return socket.address();
  }

  close(): void {
    this.socket?.close();
    this.socket = null;
  }
}
