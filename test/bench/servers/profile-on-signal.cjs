// Required by a benchmark's server: SIGUSR2 starts a V8 CPU profile of the process; the next
// SIGUSR2 stops it and writes it to BENCH_PROFILE_OUT, so a benchmark profiles one window of its
// load and nothing else (lib.mjs profileWindow).
const fs = require('node:fs');
const inspector = require('node:inspector');

let profiling = null;
process.on('SIGUSR2', () => {
  if (!profiling) {
    profiling = new inspector.Session();
    profiling.connect();
    profiling.post('Profiler.enable', () => profiling.post('Profiler.start'));
    return;
  }
  const session = profiling;
  profiling = null;
  session.post('Profiler.stop', (error, result) => {
    if (!error && process.env.BENCH_PROFILE_OUT) fs.writeFileSync(process.env.BENCH_PROFILE_OUT, JSON.stringify(result.profile));
    session.disconnect();
  });
});
