// Shared helpers of the benchmarks: child servers, HTTP load with autocannon, medians.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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

/** The name (comm) and parent of a process, from /proc/<pid>/stat; null once it is gone. */
function processInfo(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      comm,
      ppid: Number(fields[1]),
      cpuSeconds: (Number(fields[11]) + Number(fields[12])) / 100,
      // cutime + cstime: the children it has reaped (a PostgreSQL backend that exited is counted here, by the postmaster).
      reapedChildrenSeconds: (Number(fields[13]) + Number(fields[14])) / 100,
    };
  } catch {
    return null;
  }
}

/**
 * CPU seconds used so far by each component of a run (QUALITY.md: "CPU time per unit read from
 * /proc for each process"): the API and worker processes given, every PostgreSQL process (the
 * postmaster and its backends, found by name: the machine's one server), redis-server, the proxy
 * processes given (S2's HAProxy), and this process, the load generator. PostgreSQL and Redis also
 * count the CPU of their children that exited (cutime + cstime): a backend whose pool closed it
 * during a window moves its CPU to the postmaster's children time instead of taking it away, so a
 * window's figure never goes negative.
 */
export function componentCpuSeconds({ api = [], worker = [], proxy = [] } = {}) {
  const totals = { api: 0, postgres: 0, redis: 0, worker: 0, proxy: 0, loadGenerator: processCpuSeconds(process.pid) };
  const mine = new Map([...api.map((pid) => [pid, 'api']), ...worker.map((pid) => [pid, 'worker']), ...proxy.map((pid) => [pid, 'proxy'])]);
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const info = processInfo(pid);
    if (!info) continue;
    const component = mine.get(pid) ?? (info.comm === 'postgres' ? 'postgres' : info.comm === 'redis-server' ? 'redis' : null);
    if (component)
      totals[component] += info.cpuSeconds + (component === 'postgres' || component === 'redis' ? info.reapedChildrenSeconds : 0);
  }
  return totals;
}

const BOUND_LABELS = { api: 'API', postgres: 'PostgreSQL', redis: 'Redis', worker: 'worker', proxy: 'HAProxy' };

/**
 * What bounds a ratio, measured: the component whose CPU per unit grew most over the baseline's,
 * with its share of the whole gap (the load generator left out: it is not the product). `product`
 * and `baseline` are { before, after, units } around componentCpuSeconds readings.
 */
export function cpuGapBound(product, baseline, unit) {
  const per = (side) =>
    Object.fromEntries(
      Object.keys(BOUND_LABELS).map((key) => [key, ((side.after[key] - side.before[key]) * 1000) / Math.max(1, side.units)]),
    );
  return cpuGapBoundPerUnit(per(product), per(baseline), unit);
}

/** cpuGapBound from CPU ms per unit by component ({ api, postgres, redis, worker?, proxy? }) on each side. */
export function cpuGapBoundPerUnit(product, baseline, unit) {
  const gaps = Object.keys(BOUND_LABELS).map((key) => ({ key, gap: (product[key] ?? 0) - (baseline[key] ?? 0) }));
  const total = gaps.reduce((sum, { gap }) => sum + gap, 0);
  if (!(total > 0)) return null;
  const [top] = gaps.sort((a, b) => b.gap - a.gap);
  return (
    `${BOUND_LABELS[top.key]} CPU ${(product[top.key] ?? 0).toFixed(2)} vs ${(baseline[top.key] ?? 0).toFixed(2)} ms per ${unit}, ` +
    `${Math.round((100 * top.gap) / total)}% of the ${total.toFixed(2)} ms gap`
  );
}

/**
 * A CPU profile of `server` (started with servers/api-server.cjs and BENCH_PROFILE_OUT=`file`)
 * while `work` runs: SIGUSR2 starts the profiler in the child, the next one stops it and the child
 * writes the profile. Answers `work`'s result and the profile.
 */
export async function profileWindow(server, file, work) {
  rmSync(file, { force: true });
  process.kill(server.pid, 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 100)); // the child's profiler starts on its next turn
  const result = await work();
  process.kill(server.pid, 'SIGUSR2');
  for (let waited = 0; !existsSync(file); waited += 50) {
    if (waited > 10_000) throw new Error(`no CPU profile from ${server.pid} in ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 100)); // written in one call; let it finish
  return { result, profile: JSON.parse(readFileSync(file, 'utf8')) };
}

/**
 * Where a V8 CPU profile's busy time went, by package: each sample goes to the nearest frame that
 * belongs to a package (node_modules/<name>) or to the app's own code (apps|libs/<name>/…/<module>),
 * else to Node's internals (the HTTP server, sockets). Answers every package's share of the busy
 * time (idle, GC and program time left out of the whole), largest first: [{ name, share }].
 */
export function profileShares(profile) {
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const owner = (url) => {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
    if (pkg) return pkg[1];
    const own = /\/(apps|libs)\/([^/]+)\/(?:dist\/)?(?:src\/)?(?:modules\/)?([^/.]+)/.exec(url);
    return own ? `${own[2]}:${own[3]}` : null;
  };
  const time = new Map();
  profile.samples.forEach((id, index) => time.set(id, (time.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const shares = new Map();
  let busy = 0;
  for (const [id, micros] of time) {
    const name = byId.get(id).callFrame.functionName;
    if (name === '(idle)' || name === '(garbage collector)' || name === '(program)') continue;
    busy += micros;
    let label = null;
    for (let at = id; at !== undefined && !label; at = parents.get(at)) label = owner(byId.get(at).callFrame.url);
    label ??= 'node internals';
    shares.set(label, (shares.get(label) ?? 0) + micros);
  }
  return [...shares].sort((a, b) => b[1] - a[1]).map(([name, micros]) => ({ name, share: micros / Math.max(1, busy) }));
}

/**
 * What a per-request CPU gap is made of, measured: each side's CPU per request (from /proc) split
 * by package in the shares of its profile (profileShares), and the packages whose µs per request
 * grew most, largest first: "@nestjs/core +40 µs, …".
 */
export function packageGap(product, baseline, top = 4) {
  const perRequest = (side) => new Map(side.shares.map(({ name, share }) => [name, share * side.cpuUs]));
  const ours = perRequest(product);
  const theirs = perRequest(baseline);
  return [...new Set([...ours.keys(), ...theirs.keys()])]
    .map((name) => ({ name, gap: (ours.get(name) ?? 0) - (theirs.get(name) ?? 0) }))
    .sort((a, b) => b.gap - a.gap)
    .slice(0, top)
    .map(({ name, gap }) => `${name} ${gap >= 0 ? '+' : ''}${Math.round(gap)} µs`)
    .join(', ');
}

/** How busy the machine's cores were between two componentCpuSeconds readings `seconds` apart, every component counted. */
export function machineBusy(before, after, seconds) {
  const used = Object.keys(after).reduce((sum, key) => sum + (after[key] - before[key]), 0);
  return `${Math.round((100 * used) / (seconds * os.cpus().length))}% of ${os.cpus().length} cores busy`;
}

/** "API 3.10 ms, PostgreSQL 1.20 ms, …" per unit between two componentCpuSeconds readings. */
export function describeComponentCpu(before, after, units, unit) {
  const labels = {
    api: 'API',
    postgres: 'PostgreSQL',
    redis: 'Redis',
    worker: 'worker',
    proxy: 'HAProxy',
    loadGenerator: 'load generator',
  };
  // The worker and the proxy only when the run has them (their total is 0 otherwise).
  const parts = Object.entries(labels)
    .filter(([key]) => !['worker', 'proxy'].includes(key) || after[key] > 0)
    .map(([key, label]) => `${label} ${(((after[key] - before[key]) * 1000) / Math.max(1, units)).toFixed(2)} ms`);
  const total = Object.keys(labels).reduce((sum, key) => sum + (after[key] - before[key]), 0);
  return `CPU per ${unit}: ${parts.join(', ')} (all ${((total * 1000) / Math.max(1, units)).toFixed(2)} ms)`;
}
