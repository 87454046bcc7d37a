/**
 * A test daemon (rtpengine, coturn, …) run in the foreground as a child of the test: its stdout and
 * stderr kept as its log, ready once `ready()` answers true (an exit before that fails with the log's
 * tail), and stopped by its own pid (SIGTERM, SIGKILL after 3 s), then `cleanup` (its private
 * config dir). A start that never gets ready stops it before throwing. No system service is used.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { eventually } from './eventually';

export interface RunningDaemon {
  /** What it logged so far (the last `keepLog` characters when that is set). */
  log(): string;
  stop(): Promise<void>;
}

export async function startDaemon(options: {
  /** Its name in errors: "<name> exited with …", "<name> does not answer yet". */
  name: string;
  binary: string;
  args: string[];
  /** One probe of its port: true once it answers. */
  ready: () => Promise<boolean>;
  /** What "not ready yet" says (default `<name> does not answer yet`). */
  notReady?: string;
  /** Keep only the log's last characters (a chatty daemon); default all of it. */
  keepLog?: number;
  /** Run after it stopped (remove its private config). */
  cleanup?: () => void;
}): Promise<RunningDaemon> {
  const child: ChildProcess = spawn(options.binary, options.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const append = (chunk: Buffer) => {
    log += chunk.toString();
    if (options.keepLog !== undefined) log = log.slice(-options.keepLog);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
    options.cleanup?.();
  };
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`${options.name} exited with ${child.exitCode}: ${log.slice(-2000)}`);
        if (!(await options.ready())) throw new Error(options.notReady ?? `${options.name} does not answer yet`);
      },
      { timeoutMs: 15_000 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { log: () => log, stop };
}
