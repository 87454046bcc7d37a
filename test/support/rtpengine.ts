/**
 * A real media relay for the inbound voice suites: Debian's rtpengine (package rtpengine-daemon) run in the foreground
 * in userspace (`--table=-1`, no kernel module) on 127.0.0.1, with its ng control socket on a free UDP port, a small
 * RTP port range of its own, and its DTMF log sent to the address the voice server listens on. Stopped by its own pid;
 * the system's rtpengine service is never used. `rtpengineBinary()` is null when rtpengine is not installed (the suites
 * then skip with a message; .ci/run installs it so CI never skips).
 */
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { startDaemon } from './daemon';

const CANDIDATES = [process.env.RTPENGINE_PATH, '/usr/bin/rtpengine', '/usr/sbin/rtpengine'];

export function rtpengineBinary(): string | null {
  return CANDIDATES.find((candidate): candidate is string => !!candidate && existsSync(candidate)) ?? null;
}

export interface RunningRtpengine {
  /** RTPENGINE_NG for the voice server. */
  ng: { host: '127.0.0.1'; port: number };
  /** What rtpengine logged (stderr), for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

/** A free UDP port on the loopback (bound and released: ports 0 where the daemon cannot take 0 itself). */
export function freeUdpPort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, host, () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}

/** A free TCP port on the loopback (rtpengine's CLI listener). */
function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** One ng ping over UDP: true when rtpengine answers "pong". */
function ngPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    const cookie = randomBytes(6).toString('hex');
    const timer = setTimeout(() => {
      socket.close();
      resolve(false);
    }, 300);
    socket.once('message', (message) => {
      clearTimeout(timer);
      socket.close();
      // ng: "<cookie> <bencoded dictionary>" both ways.
      const text = message.toString('utf8');
      resolve(text.startsWith(`${cookie} `) && text.includes('6:result4:pong'));
    });
    socket.send(`${cookie} d7:command4:pinge`, port, '127.0.0.1');
  });
}

/** Starts rtpengine; `dtmfLogDest` is where it sends one JSON datagram per DTMF event (the voice server's VOICE_DTMF_LISTEN). */
export async function startRtpengine(options: {
  dtmfLogDest: { host: string; port: number };
  /** Records calls asked to ('start recording') as pcaps under this directory (--recording-method=pcap, raw IP). */
  recordingDir?: string;
}): Promise<RunningRtpengine> {
  const binary = rtpengineBinary();
  if (!binary)
    throw new Error(
      "rtpengine is not installed: the voice tests need Debian's rtpengine-daemon (apt-get install -y rtpengine-daemon) or RTPENGINE_PATH.",
    );
  const ngPort = await freeUdpPort();
  // Its own even-aligned range of 100 ports, away from the kernel's ephemeral range (32768+), picked at random per run.
  const base = 20_000 + Math.floor(Math.random() * 100) * 100;
  const daemon = await startDaemon({
    name: 'rtpengine',
    binary,
    args: [
      '--table=-1',
      '--interface=127.0.0.1',
      `--listen-ng=127.0.0.1:${ngPort}`,
      // Debian's /etc/rtpengine/rtpengine.conf sets listen-cli=localhost:2224 and listen-http=localhost:2225: two
      // suites' daemons at once would clash on them.
      `--listen-cli=127.0.0.1:${await freeTcpPort()}`,
      `--listen-http=127.0.0.1:${await freeTcpPort()}`,
      '--foreground',
      '--log-stderr',
      '--log-level=5',
      `--port-min=${base}`,
      `--port-max=${base + 99}`,
      `--dtmf-log-dest=${options.dtmfLogDest.host}:${options.dtmfLogDest.port}`,
      '--delete-delay=0',
      '--no-redis-required',
      ...(options.recordingDir ? [`--recording-dir=${options.recordingDir}`, '--recording-method=pcap', '--recording-format=raw'] : []),
    ],
    ready: () => ngPing(ngPort),
    notReady: 'rtpengine does not answer its ng ping yet',
    keepLog: 20_000,
  });
  return { ng: { host: '127.0.0.1', port: ngPort }, log: daemon.log, stop: daemon.stop };
}
