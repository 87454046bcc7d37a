/**
 * A real Kamailio (Debian's kamailio + kamailio-websocket-modules) for the softphone browser test:
 * the config in test/support/kamailio/ is written with free ports into a temp dir and run in the
 * foreground as a child process, stopped by its pid. Missing Kamailio fails loudly, never skips.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from './eventually';

const CANDIDATES = [process.env.KAMAILIO_PATH, '/usr/sbin/kamailio', '/usr/local/sbin/kamailio'];

export interface RunningKamailio {
  wsUrl: string;
  domain: string;
  /** Its UDP socket: where plain SIP peers (the voice server's 'connect' INVITE, a desk phone's REGISTER) reach it. */
  udp: { host: string; port: number };
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

export function findKamailio(): string {
  const binary = CANDIDATES.find((candidate) => candidate && existsSync(candidate));
  if (!binary) {
    throw new Error(
      "Kamailio is not installed: the softphone browser test needs it. Install Debian's packages " +
        '(apt-get install -y kamailio kamailio-websocket-modules; npm test does this when run as root) or set KAMAILIO_PATH.',
    );
  }
  return binary;
}

/**
 * `udpHost`: the loopback address of its UDP socket (default 127.0.0.1). The voice connect suite puts it on another
 * address than the voice server's, because the sip package takes a Route to its own host for a flow token.
 */
export async function startKamailio(options: { udpHost?: string } = {}): Promise<RunningKamailio> {
  const udpHost = options.udpHost ?? '127.0.0.1';
  const binary = findKamailio();
  const dir = mkdtempSync(path.join(tmpdir(), 'centralita-kamailio-'));
  const [wsPort, udpPort] = [await freePort(), await freePort()];
  const template = readFileSync(path.join(__dirname, 'kamailio', 'kamailio.cfg'), 'utf8');
  const cfg = path.join(dir, 'kamailio.cfg');
  writeFileSync(
    cfg,
    template.replaceAll('__WS_PORT__', String(wsPort)).replaceAll('__UDP_PORT__', String(udpPort)).replaceAll('__UDP_HOST__', udpHost),
  );

  const check = spawnSync(binary, ['-c', '-f', cfg, '-Y', dir], { encoding: 'utf8' });
  if (check.status !== 0) {
    throw new Error(`Kamailio rejected the test config (is kamailio-websocket-modules installed?):\n${check.stderr}`);
  }
  const child: ChildProcess = spawn(binary, ['-DD', '-E', '-f', cfg, '-Y', dir, '-m', '64', '-M', '8'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  // Kept for the error message when it dies at start.
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-20_000);
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    await eventually(
      async () => {
        if (exited) throw new Error(`Kamailio exited at start:\n${log}`);
        if (!(await accepts(wsPort))) throw new Error(`Kamailio is not listening on ${wsPort} yet`);
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
  } catch (error) {
    if (!exited && child.pid) process.kill(child.pid, 'SIGKILL');
    throw error;
  }

  return {
    wsUrl: `ws://127.0.0.1:${wsPort}`,
    domain: '127.0.0.1',
    udp: { host: udpHost, port: udpPort },
    async stop() {
      if (!exited && child.pid) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        process.kill(child.pid, 'SIGTERM');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
