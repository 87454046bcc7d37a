/**
 * A real IMAP server for the email suites: Debian's dovecot-imapd run in the foreground as root
 * from a private config (a temp dir: its own base and state dirs, passwd-file users, maildirs) on
 * 127.0.0.1 and a free port, stopped by its own pid. The system's dovecot service is never used.
 * Mail arrives by IMAP APPEND from the test (`append`), or straight into the maildir while the
 * server is down (`deliverWhileDown`), as a local delivery agent would. Missing Dovecot fails
 * loudly (`apt-get install dovecot-imapd`; scripts/test.mjs does it when run as root).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { eventually } from './eventually';

const CANDIDATES = [process.env.DOVECOT_PATH, '/usr/sbin/dovecot'];
/** The unprivileged owner of the maildirs (Dovecot refuses uid 0 for mail). */
const MAIL_OWNER = { user: 'nobody', group: 'nogroup', uid: 65534, gid: 65534 };

export interface RunningDovecot {
  host: '127.0.0.1';
  port: number;
  /** Adds a mailbox user (passwd-file; Dovecot re-reads it on change). */
  addUser(user: string, password: string): void;
  /** APPENDs a raw message to the user's folder; answers its UID. */
  append(user: string, password: string, raw: string | Buffer, folder?: string): Promise<number>;
  /** The UIDs and Message-IDs in a folder (what the test's own client sees). */
  list(user: string, password: string, folder?: string): Promise<{ uid: number; messageId: string | null }[]>;
  /** Stops the server (SIGTERM, then SIGKILL), keeping its mail. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same mail; `resetUidValidity` makes the INBOX's UIDVALIDITY change. */
  start(options?: { resetUidValidity?: string }): Promise<void>;
  /** Drops a message into the user's maildir `new/` while the server is down (a local delivery). */
  deliverWhileDown(user: string, raw: string | Buffer): void;
  /** Stops the server for good and removes its files. */
  close(): Promise<void>;
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

/** The processes (other than this one) whose working directory or open files are under `dir`. */
function processesUsing(dir: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const links = [
        readlinkSafe(`/proc/${pid}/cwd`),
        ...readdirSync(`/proc/${pid}/fd`).map((fd) => readlinkSafe(`/proc/${pid}/fd/${fd}`)),
      ];
      if (links.some((link) => link === dir || link.startsWith(`${dir}/`))) found.push(pid);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

function readlinkSafe(link: string): string {
  try {
    return readlinkSync(link);
  } catch {
    return '';
  }
}

export function findDovecot(): string {
  const binary = CANDIDATES.find((candidate) => candidate && existsSync(candidate));
  if (!binary) {
    throw new Error(
      "Dovecot is not installed: the email tests need a real IMAP server. Install Debian's dovecot-imapd " +
        '(apt-get install -y dovecot-imapd; npm test does this when run as root) or set DOVECOT_PATH.',
    );
  }
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new Error('The email tests start Dovecot from a private config, which needs root (it switches to its own users).');
  }
  return binary;
}

function config(dir: string, port: number): string {
  return `# Written by test/support/dovecot.ts for one test run.
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${dir}/mail/%u
first_valid_uid = 0
mail_uid = ${MAIL_OWNER.user}
mail_gid = ${MAIL_OWNER.group}
default_internal_user = dovecot
default_login_user = dovenull
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/users
}
userdb {
  driver = static
  args = uid=${MAIL_OWNER.user} gid=${MAIL_OWNER.group} home=${dir}/mail/%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service stats {
  unix_listener stats-reader {
    mode = 0666
  }
  unix_listener stats-writer {
    mode = 0666
  }
}
`;
}

export async function startDovecot(): Promise<RunningDovecot> {
  const binary = findDovecot();
  const dir = mkdtempSync(path.join(tmpdir(), 'centralita-dovecot-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  for (const sub of ['run', 'state', 'mail']) mkdirSync(path.join(dir, sub));
  chownSync(path.join(dir, 'mail'), MAIL_OWNER.uid, MAIL_OWNER.gid);
  writeFileSync(path.join(dir, 'users'), '');
  const conf = path.join(dir, 'dovecot.conf');
  writeFileSync(conf, config(dir, port));
  let child: ChildProcess | null = null;
  let output = '';

  const start = async () => {
    rmSync(path.join(dir, 'run'), { recursive: true, force: true });
    mkdirSync(path.join(dir, 'run'));
    const started = spawn(binary, ['-F', '-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await eventually(
        async () => {
          if (started.exitCode !== null) throw new Error(`dovecot exited (${started.exitCode}): ${output.slice(-2000)}`);
          if (!(await accepts(port))) throw new Error(`dovecot is not listening on ${port} yet`);
        },
        { timeoutMs: 15_000 },
      );
    } catch (error) {
      started.kill('SIGKILL');
      throw error;
    }
  };

  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    const stuck = setTimeout(() => running.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(stuck);
    // Its imap processes end with the master; the port is free once nothing accepts.
    await eventually(
      async () => {
        if (await accepts(port)) throw new Error('dovecot still accepts connections');
      },
      { timeoutMs: 10_000 },
    );
    // An imap process outlives its master for a moment and saves the folder's uidlist and index as it
    // exits: until it is gone the maildir is not the test's to change (a UIDVALIDITY reset was undone).
    await eventually(
      async () => {
        const left = processesUsing(dir);
        if (left.length) throw new Error(`dovecot processes still use the mail: ${left.join(', ')}`);
      },
      { timeoutMs: 10_000 },
    ).catch(() => {
      for (const pid of processesUsing(dir)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    });
  };

  const client = async (user: string, password: string) => {
    const imap = new ImapFlow({ host: '127.0.0.1', port, secure: false, doSTARTTLS: false, auth: { user, pass: password }, logger: false });
    imap.on('error', () => undefined);
    await imap.connect();
    return imap;
  };

  await start();
  return {
    host: '127.0.0.1',
    port,
    addUser(user, password) {
      if (/[:\s]/.test(user) || /[:\n]/.test(password)) throw new Error('test users and passwords must not contain ":" or spaces');
      appendFileSync(path.join(dir, 'users'), `${user}:{PLAIN}${password}\n`);
    },
    async append(user, password, raw, folder = 'INBOX') {
      const imap = await client(user, password);
      try {
        const answer = await imap.append(folder, typeof raw === 'string' ? Buffer.from(raw) : raw);
        if (!answer || typeof answer.uid !== 'number') throw new Error('APPEND gave no UID');
        return answer.uid;
      } finally {
        await imap.logout().catch(() => imap.close());
      }
    },
    async list(user, password, folder = 'INBOX') {
      const imap = await client(user, password);
      try {
        await imap.mailboxOpen(folder, { readOnly: true });
        if (!imap.mailbox || imap.mailbox.exists === 0) return [];
        const messages = await imap.fetchAll('1:*', { uid: true, envelope: true });
        return messages.map((one) => ({ uid: one.uid, messageId: one.envelope?.messageId ?? null }));
      } finally {
        await imap.logout().catch(() => imap.close());
      }
    },
    stop,
    async start(options = {}) {
      if (options.resetUidValidity) {
        // Dovecot keeps UIDVALIDITY in the maildir's uidlist and index: without them the folder gets a new one.
        const box = path.join(dir, 'mail', options.resetUidValidity);
        for (const name of existsSync(box) ? readdirSync(box) : []) {
          if (name.startsWith('dovecot')) rmSync(path.join(box, name), { recursive: true, force: true });
        }
      }
      await start();
    },
    deliverWhileDown(user, raw) {
      const box = path.join(dir, 'mail', user);
      for (const sub of ['new', 'cur', 'tmp']) {
        mkdirSync(path.join(box, sub), { recursive: true });
      }
      const file = path.join(box, 'new', `${Date.now()}.M${randomBytes(6).toString('hex')}.centralita-test`);
      writeFileSync(file, typeof raw === 'string' ? raw.replace(/\r?\n/g, '\n') : raw);
      for (const target of [box, path.join(box, 'new'), path.join(box, 'cur'), path.join(box, 'tmp'), file]) {
        chownSync(target, MAIL_OWNER.uid, MAIL_OWNER.gid);
      }
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
