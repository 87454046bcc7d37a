import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';

export interface ChildWorker {
  child: ChildProcessWithoutNullStreams;
  /** Resolves once the child printed "ready"; rejects if it exits first. */
  ready: Promise<void>;
  /** Resolves with the exit code/signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
}

/** Runs a TypeScript child helper (apps/api/test/support/<file>) under register-ts.cjs. */
export function spawnChild(file: string, env: NodeJS.ProcessEnv): ChildWorker {
  const child = spawn(process.execPath, ['-r', path.join(__dirname, 'register-ts.cjs'), path.join(__dirname, file)], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('ready\n')) resolve();
    });
    void exited.then(({ code, signal }) => reject(new Error(`${file} exited (${code ?? signal}) before ready:\n${stderr}`)));
  });
  ready.catch(() => undefined);
  return { child, ready, exited, output: () => `stdout:\n${stdout}\nstderr:\n${stderr}` };
}
