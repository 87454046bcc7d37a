import { createSocket, type Socket } from 'node:dgram';

type End = 'first' | 'consulted';

/**
 * The media of an attended transfer's consultation: the first agent and the consulted agent talk through two UDP
 * sockets of the worker, each the far end of one agent's side in rtpengine (the agents' sides stay answerers, as the
 * monitoring mixer keeps them, so neither phone is re-INVITEd and a browser's DTLS is left alone). Both sides are
 * offered the same one-codec SDP (the caller's G.711), so what one agent says is forwarded to the other packet for
 * packet, RTP headers included; the caller is elsewhere, on the platform sink with hold music.
 */
export class ConsultRelay {
  private readonly peers: Record<End, { host: string; port: number } | null> = { first: null, consulted: null };

  private constructor(private readonly sockets: Record<End, Socket>) {
    for (const end of ['first', 'consulted'] as const) {
      const other: End = end === 'first' ? 'consulted' : 'first';
      sockets[end].on('message', (packet) => {
        const peer = this.peers[other];
        if (peer) sockets[other].send(packet, peer.port, peer.host);
      });
    }
  }

  static async open(host: string): Promise<ConsultRelay> {
    const bind = () =>
      new Promise<Socket>((resolve, reject) => {
        const socket = createSocket('udp4');
        socket.on('error', () => undefined);
        socket.once('error', reject);
        socket.bind(0, host, () => resolve(socket));
      });
    return new ConsultRelay({ first: await bind(), consulted: await bind() });
  }

  port(end: End): number {
    return this.sockets[end].address().port;
  }

  /** rtpengine's SDP toward this end of the relay: where the other agent's packets go. */
  connect(end: End, sdp: string): void {
    const host = /^c=IN IP4 (\S+)/m.exec(sdp)?.[1];
    const port = /^m=audio (\d+) /m.exec(sdp)?.[1];
    if (!host || !port) throw new Error(`no audio in rtpengine's SDP toward the consultation's ${end} end`);
    this.peers[end] = { host, port: Number(port) };
  }

  close(): void {
    for (const socket of Object.values(this.sockets))
      try {
        socket.close();
      } catch {
        // already closed
      }
  }
}
