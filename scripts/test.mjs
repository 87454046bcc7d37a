// `npm test`: every tier (unit, integration, e2e, browser) in one jest run against real PostgreSQL
// and Redis resolved like `npm start` does, then one closing line `N passed, N failed[, N skipped]`.
// Extra arguments go to jest (e.g. `npm test -- libs/domain`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { buildNode, buildWeb } from './lib/build.mjs';
import { DATA_DIR, ROOT, resolvePostgres, resolveRedis, stopOwned } from './lib/infra.mjs';
import { log, warn } from './lib/log.mjs';

const CHROMIUM_CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const findChromium = () => CHROMIUM_CANDIDATES.find((candidate) => candidate && existsSync(candidate));

/** Finds Chromium, installing Debian's package when we are root with apt; null means skip the browser tier. */
function ensureChromium() {
  let chromium = findChromium();
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!chromium && isRoot && spawnSync('sh', ['-c', 'command -v apt-get']).status === 0) {
    log("Chromium is not installed: installing Debian's chromium package with apt-get for the browser tests...");
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit' });
    chromium = findChromium();
  }
  return chromium ?? null;
}

/** The softphone browser test needs Debian's Kamailio with its WebSocket module; installed like Chromium. */
function ensureKamailio() {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const installed = spawnSync('sh', ['-c', 'command -v kamailio && dpkg -s kamailio-websocket-modules']).status === 0;
  if (!installed && isRoot && spawnSync('sh', ['-c', 'command -v apt-get']).status === 0) {
    log("Kamailio is not installed: installing Debian's kamailio packages with apt-get for the softphone test...");
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    spawnSync('apt-get', ['install', '-y', '-qq', 'kamailio', 'kamailio-websocket-modules'], { stdio: 'inherit' });
  }
}

/**
 * Debian's dovecot-imapd for the email suites (a real IMAP server, started by the tests from a
 * private config on a loopback port). Installed when missing and run as root; the system service
 * the package starts is stopped again: only the tests' own instances may run.
 */
function ensureDovecot() {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const installed = spawnSync('sh', ['-c', 'test -x /usr/sbin/dovecot && dpkg -s dovecot-imapd']).status === 0;
  if (!installed && isRoot && spawnSync('sh', ['-c', 'command -v apt-get']).status === 0) {
    log("Dovecot is not installed: installing Debian's dovecot-imapd with apt-get for the email tests...");
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    spawnSync('apt-get', ['install', '-y', '-qq', 'dovecot-imapd'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    spawnSync('sh', ['-c', '(service dovecot stop || systemctl stop dovecot || /usr/sbin/dovecot stop) >/dev/null 2>&1'], {
      stdio: 'ignore',
    });
  }
}

function jestArgs(projects, outputFile, passthrough) {
  return [
    path.join(ROOT, 'node_modules/jest/bin/jest.js'),
    '--selectProjects',
    ...projects,
    '--json',
    '--outputFile',
    outputFile,
    '--maxWorkers=2',
    ...passthrough,
  ];
}

async function main() {
  const passthrough = process.argv.slice(2);
  const postgres = await resolvePostgres();
  const redis = await resolveRedis();
  process.env.DATABASE_URL = postgres.url; // administrative URL: global-setup creates a fresh database per run
  process.env.REDIS_URL = redis.url;

  const projects = ['unit', 'integration', 'e2e'];
  let skipped = 0;
  ensureDovecot();
  const chromium = ensureChromium();
  if (chromium) {
    process.env.CHROMIUM_PATH = chromium;
    ensureKamailio();
    buildNode();
    buildWeb();
    projects.push('browser');
  } else {
    const listed = spawnSync(
      process.execPath,
      [path.join(ROOT, 'node_modules/jest/bin/jest.js'), '--selectProjects', 'browser', '--listTests'],
      { encoding: 'utf8' },
    );
    skipped = listed.stdout.split('\n').filter((line) => line.endsWith('.ts')).length;
    warn('='.repeat(78));
    warn(`NO CHROMIUM: the browser suite (${skipped} files) is SKIPPED.`);
    warn('Install it and run again:  sudo apt-get install -y chromium   (or set CHROMIUM_PATH)');
    warn('='.repeat(78));
  }

  mkdirSync(DATA_DIR, { recursive: true });
  const outputFile = path.join(DATA_DIR, `jest-results-${process.pid}.json`);
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, jestArgs(projects, outputFile, passthrough), { cwd: ROOT, stdio: 'inherit', env: process.env });
    child.on('exit', (exitCode) => resolve(exitCode ?? 1));
  });

  let passed = 0;
  let failed = 0;
  if (existsSync(outputFile)) {
    const results = JSON.parse(readFileSync(outputFile, 'utf8'));
    passed = results.numPassedTests;
    // A suite that fails to load has no tests; count it as a failure so it cannot hide.
    failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    skipped += results.numPendingTests + results.numTodoTests;
    rmSync(outputFile);
  } else {
    failed = 1;
    warn('jest wrote no results');
  }
  await stopOwned();
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(code !== 0 || failed > 0 ? 1 : 0);
}

main().catch(async (error) => {
  warn(error.stack ?? String(error));
  await stopOwned();
  console.log('0 passed, 1 failed');
  process.exit(1);
});
