/**
 * A real TURN relay for the video suites: Debian's coturn (`turnserver`) run in the foreground as
 * root from a private config (a temp dir) on 127.0.0.1, a free port and a small relay port range,
 * with the REST API shared secret the API mints credentials from; stopped by its own pid. Loopback
 * peers are allowed (--allow-loopback-peers) because both browsers run here: never in production.
 * The system's coturn service is never used. Missing coturn fails loudly.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './suite-api';
import { startDaemon } from './daemon';

const CANDIDATES = [process.env.TURNSERVER_PATH, '/usr/bin/turnserver'];

export interface RunningCoturn {
  port: number;
  secret: string;
  /** TURN_URLS for the API: UDP and TCP on the loopback port. */
  urls: string;
  /** Allocations coturn has logged so far ("session ... new" lines): proof the relay was used. */
  allocations(): number;
  stop(): Promise<void>;
}

export function findTurnserver(): string {
  const binary = CANDIDATES.find((candidate) => candidate && existsSync(candidate));
  if (!binary) {
    throw new Error("coturn is not installed: the video relay test needs Debian's coturn (apt-get install -y coturn) or TURNSERVER_PATH.");
  }
  return binary;
}

/** Whether something answers a STUN binding request on the port (coturn is up). */
function answersStun(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    const request = Buffer.alloc(20);
    request.writeUInt16BE(0x0001, 0); // Binding Request
    request.writeUInt16BE(0, 2);
    request.writeUInt32BE(0x2112a442, 4); // magic cookie
    randomBytes(12).copy(request, 8);
    const timer = setTimeout(() => {
      socket.close();
      resolve(false);
    }, 300);
    socket.once('message', () => {
      clearTimeout(timer);
      socket.close();
      resolve(true);
    });
    socket.send(request, port, '127.0.0.1');
  });
}

export async function startCoturn(): Promise<RunningCoturn> {
  const binary = findTurnserver();
  const dir = mkdtempSync(path.join(tmpdir(), 'centralita-coturn-'));
  const port = await freePort();
  const secret = randomBytes(24).toString('hex');
  const base = 40_000 + Math.floor(Math.random() * 200) * 100;
  writeFileSync(
    path.join(dir, 'turnserver.conf'),
    [
      '# Written by test/support/coturn.ts for one test run.',
      'listening-ip=127.0.0.1',
      'relay-ip=127.0.0.1',
      `listening-port=${port}`,
      `min-port=${base}`,
      `max-port=${base + 99}`,
      'use-auth-secret',
      `static-auth-secret=${secret}`,
      'realm=centralita.test',
      'fingerprint',
      'allow-loopback-peers',
      'no-tls',
      'no-dtls',
      'no-cli',
      'no-multicast-peers',
      `pidfile=${path.join(dir, 'turnserver.pid')}`,
      'simple-log',
      'log-file=stdout',
      'verbose',
    ].join('\n'),
  );
  const daemon = await startDaemon({
    name: 'turnserver',
    binary,
    args: ['-c', path.join(dir, 'turnserver.conf')],
    ready: () => answersStun(port),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
  return {
    port,
    secret,
    urls: `turn:127.0.0.1:${port}?transport=udp,turn:127.0.0.1:${port}?transport=tcp`,
    allocations: () => (daemon.log().match(/new, realm=|ALLOCATE processed, success/g) ?? []).length,
    stop: daemon.stop,
  };
}
