// Shared helpers of the benchmarks: child servers, HTTP load with autocannon, medians.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';
import autocannon from 'autocannon';

/** Starts `node <script>` and resolves when it prints its {"port"} line. */
export async function startServer(script, env) {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout });
  const [line] = await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`${script} exited with ${code} before listening`);
    }),
  ]);
  const { port } = JSON.parse(line);
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export async function load(url, { path, headers = {}, seconds, connections = 20 }) {
  const result = await autocannon({ url: `${url}${path}`, headers, duration: seconds, connections, pipelining: 1 });
  if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers from ${url}${path}`);
  return { rps: result.requests.average, p99Ms: result.latency.p99 };
}

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
