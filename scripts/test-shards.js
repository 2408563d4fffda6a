// Splits the test files of one database family into shards of about equal time, for
// `npm run test:all` (scripts/test-all.sh). Most of a test file's time is spent waiting (on
// timers, on other processes, on the network), not computing, so several mocha processes side
// by side finish sooner than one, on two cores as well.
//
// The weights are the seconds each file took in an earlier run (test/file-times.txt, written
// from the .tmp/test-times-*.txt lists a run leaves), heaviest first into the lightest shard.
// A file not listed weighs as the median listed one. The split only balances: a stale or missing
// weight makes one shard longer, never leaves a file out.
//
// Usage: node scripts/test-shards.js <postgres|pglite> <shards> <ignored path>... < files
// (file paths on stdin, one a line). Prints one line per shard: its files, space separated.
import { existsSync, readFileSync } from 'node:fs';

const [family, shardsArg, ...ignored] = process.argv.slice(2);
const shards = Number(shardsArg);
if (!['postgres', 'pglite'].includes(family) || !Number.isInteger(shards) || shards < 1 || shards > 16) {
  process.stderr.write('usage: node scripts/test-shards.js <postgres|pglite> <shards 1-16> <ignored path>... < files\n');
  process.exit(2);
}

const files = readFileSync(0, 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((file) => file && !ignored.some((path) => file === path || file.startsWith(`${path.replace(/\/$/, '')}/`)))
  .sort();

const weights = readWeights(family);
const known = [...weights.values()].sort((a, b) => a - b);
const fallback = known.length > 0 ? known[Math.floor(known.length / 2)] : 1;
const weightOf = (file) => weights.get(file) ?? fallback;

const plan = Array.from({ length: shards }, () => ({ seconds: 0, files: [] }));
for (const file of [...files].sort((a, b) => weightOf(b) - weightOf(a) || a.localeCompare(b))) {
  const lightest = plan.reduce((best, shard) => (shard.seconds < best.seconds ? shard : best));
  lightest.files.push(file);
  lightest.seconds += weightOf(file);
}
for (const shard of plan) process.stdout.write(`${shard.files.sort().join(' ')}\n`);

/** Seconds per file of this family: lines "<seconds> <family> <file>" in test/file-times.txt. */
function readWeights(wanted) {
  const path = 'test/file-times.txt';
  const map = new Map();
  if (!existsSync(path)) return map;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const [seconds, lineFamily, file] = line.trim().split(/\s+/);
    if (lineFamily === wanted && file && Number.isFinite(Number(seconds))) map.set(file, Number(seconds));
  }
  return map;
}
