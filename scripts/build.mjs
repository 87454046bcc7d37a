// `npm run build`: everything, stale parts only (pass --force to rebuild the console regardless).
import { buildNode, buildWeb } from './lib/build.mjs';

buildNode();
buildWeb({ force: process.argv.includes('--force') });
