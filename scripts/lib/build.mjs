// Builds only what is stale: `tsc -b` is incremental for the Node side, and the console is rebuilt
// when any of its sources (or the shared libs it bundles) is newer than its last build.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './infra.mjs';
import { log, fail } from './log.mjs';

const NODE_PROJECTS = [
  'libs/contracts/tsconfig.build.json',
  'libs/domain/tsconfig.build.json',
  'libs/channels/tsconfig.build.json',
  'apps/api/tsconfig.build.json',
  'apps/worker/tsconfig.build.json',
];

function newestMtime(target) {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(target)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    newest = Math.max(newest, newestMtime(path.join(target, entry)));
  }
  return newest;
}

function run(cmd, args, cwd = ROOT) {
  const result = spawnSync(cmd, args, { cwd, stdio: 'inherit' });
  if (result.status !== 0) fail(`build failed: ${cmd} ${args.join(' ')}`);
}

export function buildNode() {
  const projects = NODE_PROJECTS.filter((p) => existsSync(path.join(ROOT, p)));
  log('building api, worker and libs (incremental)...');
  run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', ...projects]);
}

export function webIsStale() {
  const built = path.join(ROOT, 'apps/web/dist/index.html');
  if (!existsSync(built)) return true;
  const sources = [
    'apps/web/src',
    'apps/web/public',
    'apps/web/index.html',
    'apps/web/vite.config.ts',
    'libs/contracts/src',
    'libs/domain/src',
  ];
  const newestSource = Math.max(...sources.map((s) => newestMtime(path.join(ROOT, s))));
  return newestSource > statSync(built).mtimeMs;
}

export function buildWeb({ force = false } = {}) {
  if (!force && !webIsStale()) {
    log('console is up to date');
    return;
  }
  log('building the console (vite)...');
  run(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], path.join(ROOT, 'apps/web'));
}
