// Bundles the control panel (panel-build.js) and packs the device agent the gateway serves to
// phones (agent-pack.js), compiles the gateway to JavaScript in dist/
// (tsconfig.build.json: src, broker, db), copies the other files the code reads at run time (the
// /docs page) beside it, and writes a stamp of the sources it was built from. Plain JavaScript:
// it runs before anything is compiled.
//
// `npm run build` builds what is not fresh (`--force`: everything), failing on a type error.
// bin/sms-gateway.js calls ensureBuilt(), which builds only when dist/ is missing or its stamp no
// longer matches the sources, so `npm ci && npm start` stays the whole set-up even when install
// scripts are off. Several processes may start at once (a test suite, two terminals): one builds
// under a lock, the others wait and then find it fresh.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureAgentPacked } from './agent-pack.js';
import { ensurePanelBuilt } from './panel-build.js';
import { describe, readStamp, ROOT, walk } from './source-files.js';

export const DIST = join(ROOT, 'dist');
const STAMP = join(DIST, '.build-stamp.json');
const BUILD_INFO = join(DIST, '.tsbuildinfo');
const LOCK = join(ROOT, '.dist-build.lock');
// agent/src: the simulator is the device agent with a simulated radio, compiled in with the gateway.
const SOURCE_DIRS = ['src', 'broker', 'db', 'agent/src'];
/** Files outside those directories that change what the build produces. */
const BUILD_INPUTS = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.js', 'scripts/source-files.js'];
const LOCK_WAIT_MS = 5 * 60_000;
/** tsc's exit status when it reported errors but wrote every output anyway. */
const TSC_ERRORS_BUT_EMITTED = 2;

/**
 * Builds dist/ unless it is fresh. `force`: build anyway. `strict` (`npm run build`): a type
 * error fails the build, and a build the bin made from sources with type errors is not fresh.
 * Otherwise (the bin) code with type errors still runs, as it would through tsx, after one
 * warning line: someone mid-edit is not locked out of the command line. Throws with tsc's report
 * when nothing usable was emitted. Returns whether it built.
 */
export async function ensureBuilt({ force = false, strict = false } = {}) {
  await ensurePanelBuilt({ force });
  await ensureAgentPacked({ force });
  if (!force && isFresh(fingerprint(), readStamp(STAMP), strict)) return false;
  const release = await lock();
  try {
    // Another process may have built it while this one waited for the lock.
    const sources = fingerprint();
    const stamp = readStamp(STAMP);
    if (!force && isFresh(sources, stamp, strict)) return false;
    const tsc = tscPath();
    process.stderr.write(`sms-gateway: building dist/ from the TypeScript sources (${buildReason(force, sources, stamp)})\n`);
    rmSync(STAMP, { force: true });
    // Without a stamp the outputs are not to be trusted: no incremental shortcut.
    if (!stamp) rmSync(BUILD_INFO, { force: true });
    const { code, output } = await compile(tsc);
    if (code !== 0 && (strict || code !== TSC_ERRORS_BUT_EMITTED)) {
      throw new Error(`the TypeScript build failed (tsc exit code ${code}):\n${output.trim()}`);
    }
    if (code !== 0) process.stderr.write('sms-gateway: dist/ was built from sources with type errors (`npx tsc --noEmit` lists them)\n');
    copyAssets();
    // The fingerprint taken before compiling: a source edited during the build makes the next
    // run build again rather than trust outputs that may predate the edit.
    writeFileSync(STAMP, `${JSON.stringify({ sources, typeErrors: code !== 0, builtAt: new Date().toISOString() })}\n`);
    return true;
  } finally {
    release();
  }
}

/** Why a build runs, for its one line on stderr. */
function buildReason(force, sources, stamp) {
  if (!stamp) return 'no build yet';
  if (force) return 'a full build was asked for';
  if (stamp.sources === sources) return 'the last build had type errors';
  return 'they changed';
}

/** A digest of every source file's path, size and modification time. null: no sources here (dist/ shipped alone). */
export function fingerprint() {
  const entries = [];
  for (const dir of SOURCE_DIRS) walk(join(ROOT, dir), entries);
  if (entries.length === 0) return null;
  for (const file of BUILD_INPUTS) {
    const path = join(ROOT, file);
    if (existsSync(path)) entries.push(describe(path));
  }
  return createHash('sha256').update(entries.sort().join('\n')).digest('hex');
}

function isFresh(sources, stamp, strict) {
  if (!existsSync(join(DIST, 'src', 'cli', 'index.js'))) return false;
  if (sources === null) return true;
  if (strict && stamp?.typeErrors) return false;
  return stamp?.sources === sources;
}

function tscPath() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    throw new Error('dist/ is missing or older than the sources, and TypeScript is not installed to build it: run `npm ci` (with dev dependencies) and `npm run build`');
  }
}

function compile(tsc) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    // tsc outlives a builder killed mid-way and goes on writing dist/: the lock stays taken while it runs.
    writeFileSync(join(LOCK, 'pid'), `${process.pid} ${child.pid}`);
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

const AGENT = join(ROOT, 'agent');
const AGENT_STAMP = join(AGENT, 'dist', '.build-stamp.json');
const AGENT_INPUTS = ['package.json', 'tsconfig.json', 'tsconfig.build.json'];

/**
 * Compiles the device agent (agent/, a package of its own) to agent/dist, so that its command,
 * `npx sms-gateway-agent`, runs in a checkout right after `npm ci`. Skipped when its stamp
 * matches its sources, like dist/. Returns whether it built.
 */
async function buildAgent({ force = false } = {}) {
  const entries = [];
  walk(join(AGENT, 'src'), entries);
  for (const file of AGENT_INPUTS) if (existsSync(join(AGENT, file))) entries.push(describe(join(AGENT, file)));
  const sources = createHash('sha256').update(entries.sort().join('\n')).digest('hex');
  if (!force && readStamp(AGENT_STAMP)?.sources === sources) return false;
  const child = spawn(process.execPath, [tscPath(), '-p', join(AGENT, 'tsconfig.build.json')], { cwd: AGENT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  const code = await new Promise((resolve, reject) => child.once('error', reject).once('close', resolve));
  if (code !== 0) throw new Error(`the device agent's TypeScript build failed (tsc exit code ${code}):\n${output.trim()}`);
  writeFileSync(AGENT_STAMP, `${JSON.stringify({ sources, builtAt: new Date().toISOString() })}\n`);
  return true;
}

/** Everything in the source directories that is not TypeScript goes beside the compiled code. */
function copyAssets() {
  const files = [];
  for (const dir of SOURCE_DIRS) walk(join(ROOT, dir), files);
  for (const line of files) {
    const file = line.slice(0, line.indexOf(':'));
    if (file.endsWith('.ts')) continue;
    const target = join(DIST, file);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(ROOT, file), target);
  }
}

/** An exclusive lock (a directory: its creation is atomic) holding the builder's pid. */
async function lock() {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      return () => rmSync(LOCK, { recursive: true, force: true });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    if (!holderAlive()) {
      rmSync(LOCK, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`another process has been building dist/ for over ${LOCK_WAIT_MS / 60_000} minutes (lock ${LOCK})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Whether the builder or its tsc, named in the lock, still runs (a builder killed mid-way leaves its lock). */
function holderAlive() {
  let pids;
  try {
    pids = readFileSync(join(LOCK, 'pid'), 'utf8').trim().split(' ').map(Number).filter((pid) => pid > 0);
    if (pids.length === 0) throw new Error('no pid written yet');
  } catch {
    // Just created, pid not written yet: give it a moment; an empty lock this old is abandoned.
    try {
      return Date.now() - statSync(LOCK).mtimeMs < 5_000;
    } catch {
      return false;
    }
  }
  return pids.some((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return error.code === 'EPERM';
    }
  });
}

// `node scripts/build.js`: build what is not fresh, strictly; `--force`: rebuild everything.
// `--optional` (the prepare script): skip quietly where TypeScript is not installed (an install
// without dev dependencies); the bin says what to do. Says when there was nothing to do, so that
// a run that printed nothing else is not mistaken for one that did not happen.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const optional = process.argv.includes('--optional');
  const force = process.argv.includes('--force');
  const hasTypeScript = (() => {
    try {
      return Boolean(tscPath());
    } catch {
      return false;
    }
  })();
  if (optional && !hasTypeScript) process.exit(0);
  try {
    const built = await ensureBuilt({ force, strict: !optional });
    const agentBuilt = await buildAgent({ force });
    if (!optional && !built && !agentBuilt) process.stderr.write('sms-gateway: dist/ is up to date with the sources\n');
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
