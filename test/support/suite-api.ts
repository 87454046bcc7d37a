/**
 * An API process (and, when asked, a worker process) of one browser suite's own, for suites that
 * need settings the tier's shared API does not have (a provider's URL pointed at a fake, a switch
 * turned on). Both are the BUILT apps (apps/api/dist, apps/worker/dist, built by scripts/test.mjs)
 * on the tier's database, on a free port, serving the built console; the environment is the shared
 * API's (browser-setup.ts): per-IP sign-in and reset limits lifted, the tier's Redis prefix.
 *
 *   const suite = await startSuiteApi({ env: { META_GRAPH_URL: fake.url }, worker: true });
 *   suite.url            // http://127.0.0.1:<port>, also its PUBLIC_URL (webhook URLs start with it)
 *   await suite.call('POST', '/api/channel-accounts', token, body)
 *   await suite.stop()   // worker first, then the API; safe to call twice or after a failed start
 *
 * Suites that start a worker run one at a time (a lock held from start to stop, waited for): a
 * worker writes its status updates as outbox rows that ANY API process's poller may deliver (once
 * stale: its commit wakes only its own deployment's APIs, see outboxWakeChannel), to
 * that process's own Redis prefix, so two such suites at once (jest runs two files at a time) lose
 * each other's desk pushes when on different prefixes, or take each other's provider sends (each
 * worker pointed at its own fake) when on the same one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from './eventually';

const ROOT = path.resolve(__dirname, '..', '..');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The browser tier's database (browser-setup.ts), shared with its API. */
export function browserDatabaseUrl(): string {
  const name = process.env.CENTRALITA_BROWSER_TEST_DB;
  if (!name) throw new Error('CENTRALITA_BROWSER_TEST_DB is not set: run the browser tier through scripts/test.mjs');
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

const LOCK_WAIT_MS = 200_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the run's suite-worker lock (a directory: mkdir is atomic), waiting while another suite
 * holds it; a lock left by a process that died is broken. Answers its release.
 */
export async function takeWorkerLock(): Promise<() => void> {
  const lock = path.join(tmpdir(), `${process.env.QUEUE_PREFIX ?? 'centralita'}-suite-worker.lock`);
  const owner = path.join(lock, 'pid');
  await eventually(
    () => {
      try {
        mkdirSync(lock);
        writeFileSync(owner, String(process.pid));
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      let holder = 0;
      try {
        holder = Number(readFileSync(owner, 'utf8'));
      } catch {
        // Just made, its owner not written yet: held.
      }
      if (holder && !alive(holder)) {
        // Renamed first: of several waiters that found it stale, one breaks it.
        const stale = `${lock}.stale-${process.pid}-${Date.now()}`;
        try {
          renameSync(lock, stale);
          rmSync(stale, { recursive: true, force: true });
        } catch {
          // Another waiter broke it.
        }
      }
      throw new Error(`another suite with a worker still runs (lock ${lock}, process ${holder || '?'})`);
    },
    { timeoutMs: LOCK_WAIT_MS, intervalMs: 250 },
  );
  let held = true;
  return () => {
    // Once: a second stop must not free the lock another suite took since.
    if (!held) return;
    held = false;
    rmSync(lock, { recursive: true, force: true });
  };
}

export interface SuiteApiOptions {
  /** Added to (and overriding) the suite API's environment; given to the worker too. */
  env?: Record<string, string>;
  /**
   * Starts the worker (apps/worker/dist) with the same environment; the API then polls the outbox
   * sooner (the worker's status updates reach the desk through it) and the worker's dialer is off.
   */
  worker?: boolean;
  /**
   * Appended to the tier's prefix (`<QUEUE_PREFIX>-browser<suffix>`). Without it the suite's
   * processes are one cluster with the tier's shared API: either may deliver the other's outbox rows
   * and socket pushes, and run the other's queued jobs, webhook events included. A suite whose API
   * needs settings of its own to process those (a provider's URL for a profile read, a channel
   * switched on) takes a suffix, so the shared API never runs its jobs.
   */
  queuePrefixSuffix?: string;
}

export interface SuiteApi {
  url: string;
  databaseUrl: string;
  queuePrefix: string;
  api: ChildProcess;
  worker: ChildProcess | null;
  /** A call to this API answered with the envelope's data; a non-2xx answer throws with its status and message. */
  call<T>(method: string, route: string, token: string | null, body?: unknown): Promise<T>;
  /** Throws when a child process has exited (to name it in a failing wait). */
  assertRunning(): void;
  /** Stops the processes and, with a worker, gives the lock to the next suite. */
  stop(): Promise<void>;
}

/** Stops a child process and waits for it to exit (nothing to do when it already has). */
export async function stopChild(child: ChildProcess | null | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

export async function startSuiteApi(options: SuiteApiOptions = {}): Promise<SuiteApi> {
  const databaseUrl = browserDatabaseUrl();
  const release = options.worker ? await takeWorkerLock() : () => undefined;
  const port = await freePort().catch((error: unknown) => {
    release();
    throw error;
  });
  const url = `http://127.0.0.1:${port}`;
  const queuePrefix = `${process.env.QUEUE_PREFIX}-browser${options.queuePrefixSuffix ?? ''}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    PUBLIC_URL: url,
    WEB_DIST: path.join(ROOT, 'apps/web/dist'),
    QUEUE_PREFIX: queuePrefix,
    // Every suite signs in from 127.0.0.1: the per-IP limits are for people (browser-setup.ts says why).
    RATE_LIMIT_LOGIN_IP: '100000',
    RATE_LIMIT_RESET_IP: '100000',
    ...(options.worker
      ? {
          // The worker's status updates are outbox rows its commit announces on this suite's wake channel
          // (named after its queue prefix: only this API hears it). A missed one is left to the pollers,
          // this one sooner than the browser tier's API (2 s), so this suite's pushes reach this API's
          // sockets; on a loaded machine another suite's API polling the shared browser database could
          // still take such a row first (a database per worker suite would end that).
          OUTBOX_STALE_MS: '800',
          OUTBOX_POLL_MS: '200',
          // The worker must not dial other suites' campaigns.
          DIALER_ENABLED: 'false',
        }
      : {}),
    ...options.env,
  };
  const api = spawn(process.execPath, [path.join(ROOT, 'apps/api/dist/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const worker = options.worker
    ? spawn(process.execPath, [path.join(ROOT, 'apps/worker/dist/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] })
    : null;

  const assertRunning = () => {
    if (api.exitCode !== null) throw new Error(`the suite's API exited with ${api.exitCode}`);
    if (worker && worker.exitCode !== null) throw new Error(`the suite's worker exited with ${worker.exitCode}`);
  };
  const stop = async () => {
    try {
      await stopChild(worker);
      await stopChild(api);
    } finally {
      release();
    }
  };

  try {
    await eventually(
      async () => {
        assertRunning();
        if (!(await fetch(`${url}/api/health`)).ok) throw new Error('not healthy yet');
      },
      // An API process starts in seconds, but a loaded CI machine has been seen taking over 30 s.
      { timeoutMs: 120_000, intervalMs: 200 },
    );
  } catch (error) {
    await stop();
    throw error;
  }

  async function call<T>(method: string, route: string, token: string | null, body?: unknown): Promise<T> {
    const response = await fetch(`${url}${route}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const envelope = (await response.json()) as { data: T; errorMessage?: string };
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${envelope.errorMessage}`);
    return envelope.data;
  }

  return { url, databaseUrl, queuePrefix, api, worker, call, assertRunning, stop };
}
