// Shared helpers of the benchmarks: child servers, HTTP load with autocannon, medians.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import readline from 'node:readline';
import autocannon from 'autocannon';

/**
 * The load generator (this process) runs at nice 10 (scripts/bench.mjs) so it yields the cores to
 * what it measures. The servers it starts would inherit that and then lose every contest for a
 * core to PostgreSQL and Redis (nice 0): a write to either woke it and preempted the server in
 * the middle of its own request. So each server is put back at nice 0, beside them, where the
 * platform runs in production. Lowering a nice value needs root (CAP_SYS_NICE); elsewhere the
 * servers stay at nice 10 and the report says so (`serverPriority`).
 */
export const serverPriority = { restored: 0, refused: 0 };

export function atServerPriority(pid) {
  try {
    os.setPriority(pid, 0);
    serverPriority.restored++;
  } catch {
    serverPriority.refused++;
  }
}

/** Starts `node <script>` and resolves when it prints its {"port"} line. */
export async function startServer(script, env) {
  // BENCH_PROFILE_DIR=<dir>: each server also writes a V8 CPU profile there when it stops.
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  atServerPriority(child.pid);
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
    /** CPU seconds (user + system) the server has used so far, from /proc (Linux). */
    cpuSeconds: () => processCpuSeconds(child.pid),
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** utime + stime of a process in seconds (fields 14 and 15 of /proc/<pid>/stat, in clock ticks of 1/100 s). */
export function processCpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function load(url, { path, headers = {}, seconds, connections = 20 }) {
  const result = await autocannon({ url: `${url}${path}`, headers, duration: seconds, connections, pipelining: 1 });
  if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers from ${url}${path}`);
  return { rps: result.requests.average, p99Ms: result.latency.p99, requests: result.requests.total };
}

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
