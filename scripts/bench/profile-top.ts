// Reads a V8 CPU profile (node --cpu-prof, as BENCH_GATEWAY_NODE_ARGS makes the benchmarks' gateway
// write) and prints where the time went: the functions with the most self time, and the self time
// summed by package (or by our own top-level folder), as shares of the profile's samples.
//
//   npx tsx scripts/bench/profile-top.ts .tmp/prof/CPU.*.cpuprofile [--top 25] [--from sendOneSms]
//
// --from NAME counts only the samples from the first one whose stack holds a function of that name:
// the gateway's start (module loading, schema compiling) left out of a benchmark's profile.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
const fromAt = args.indexOf('--from');
const from = fromAt >= 0 ? args[fromAt + 1] : undefined;
const files = args.filter((arg, i) => !arg.startsWith('--') && (topAt < 0 || i !== topAt + 1) && (fromAt < 0 || i !== fromAt + 1));
if (files.length === 0 || !Number.isInteger(top) || top < 1) {
  process.stderr.write('usage: profile-top.ts <file.cpuprofile>... [--top N]\n');
  process.exit(2);
}

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const holds = (id: number | undefined, name: string): boolean => {
    for (; id !== undefined; id = parentOf.get(id)) if (byId.get(id)!.callFrame.functionName === name) return true;
    return false;
  };
  const firstCounted = from === undefined ? 0 : profile.samples.findIndex((id) => holds(id, from));
  if (firstCounted < 0) process.stderr.write(`${file}: no sample holds ${from}\n`);
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    if (firstCounted >= 0 && i >= firstCounted) selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const total = [...selfMs.values()].reduce((sum, ms) => sum + ms, 0);
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const frame = byId.get(id)!.callFrame;
    const name = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    const place = placeOf(frame);
    byPlace.set(place, (byPlace.get(place) ?? 0) + ms);
  }
  if (total < 1) continue;
  const print = (title: string, entries: Map<string, number>, count: number) => {
    process.stdout.write(`\n${title}\n`);
    for (const [name, ms] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, count)) {
      process.stdout.write(`${((100 * ms) / total).toFixed(1).padStart(5)}%  ${Math.round(ms).toString().padStart(7)} ms  ${name}\n`);
    }
  };
  process.stdout.write(`\n== ${file}: ${Math.round(total)} ms sampled\n`);
  print('self time by package or folder', byPlace, 15);
  print('self time by function', byFunction, top);
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + '/node_modules/'.length);
  const ours = url.search(/\/(src|broker|db)\//);
  return ours >= 0 ? url.slice(ours + 1) : url.replace(/^file:\/\//, '');
}

/** The npm package, our own folder (src/modules/webhooks), node's internals, or V8's own entries ((garbage collector), (idle)). */
function placeOf(frame: ProfileNode['callFrame']): string {
  if (!frame.url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const modules = frame.url.match(/\/node_modules\/((?:@[^/]+\/)?[^/]+)/g);
  if (modules) return modules[modules.length - 1]!.slice('/node_modules/'.length);
  const ours = frame.url.match(/\/((?:src|broker|db)\/(?:modules\/)?[^/]+)/);
  if (ours) return ours[1]!;
  if (frame.url.startsWith('node:')) return 'node internals';
  return frame.url;
}
