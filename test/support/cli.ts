// Runs the real `sms-gateway` command (bin/sms-gateway.js) as a child process, the way an
// operator or a script does. Every wait is bounded, so a hung child fails its test instead of
// the suite, and every child is tracked so an after hook (or the test process exiting) kills it.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(REPO_ROOT, 'bin', 'sms-gateway.js');

/** A well-formed API key (src/modules/api-keys/key-format.ts). */
export const API_KEY = /sgw_[0-9a-f]{10}_[A-Za-z0-9_-]{43}/;

// Configuration the gateway reads (src/config.ts): a child never inherits these from the shell
// that runs the tests, only what the test passes.
const CONFIG_VARS = [
  'PORT',
  'HOST',
  'MQTT_PORT',
  'DATABASE_URL',
  'DATA_DIR',
  'REDIS_URL',
  'LOG_LEVEL',
  'BODY_LIMIT',
  'DEFAULT_PHONE_REGION',
  'DEVICE_OFFLINE_AFTER',
  'LOG_FORMAT',
  'PUBLIC_URL',
  'SMS_GATEWAY_KEY',
];

export type Env = Record<string, string | undefined>;

// Load shedding off unless a test sets it: on a busy test machine the event loop of a child
// lags past the default 150 ms now and then, and the API would answer 503 to the test's own
// requests. Shedding has its own tests, with a lag the test controls.
export const SHEDDING_OFF: Env = { MAX_EVENT_LOOP_DELAY: '0', HTTP_TARGET_LATENCY: '0' };

function childEnv(env: Env): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, ...SHEDDING_OFF };
  for (const name of CONFIG_VARS) delete base[name];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete base[name];
    else base[name] = value;
  }
  return base;
}

const running = new Set<ChildProcess>();

/** Kills every child still running (after hooks; also when the test process exits). */
export function killChildren(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}
process.once('exit', killChildren);

/** A fresh empty directory for an embedded database; `remove` deletes it. */
export function tempDataDir(label: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `sgw-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One running `sms-gateway` process with everything it has written so far. */
export class GatewayProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  exit: Exit | undefined;
  /** When the process ended (Date.now()). */
  exitedAt: number | undefined;
  private readonly watchers = new Set<() => void>();

  /**
   * `umask`: the file mode mask the command starts with (through a shell), as an operator's may be.
   * `npmScript`: run through `npm run <script>` as README says (`npm start`), args after it.
   */
  constructor(args: string[], env: Env, options: { umask?: number; npmScript?: string } = {}) {
    const command =
      options.npmScript !== undefined
        ? { file: 'npm', args: ['run', '--silent', options.npmScript, ...(args.length > 0 ? ['--', ...args] : [])] }
        : options.umask === undefined
          ? { file: process.execPath, args: [BIN, ...args] }
          : { file: '/bin/sh', args: ['-c', `umask ${options.umask.toString(8).padStart(3, '0')} && exec "$0" "$@"`, process.execPath, BIN, ...args] };
    this.child = spawn(command.file, command.args, { cwd: REPO_ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(this.child);
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
      this.notify();
    });
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
      this.notify();
    });
    this.child.on('error', (error) => {
      this.stderr += `\n[spawn error] ${error.message}`;
      this.exit ??= { code: null, signal: null };
      this.notify();
    });
    // 'close' rather than 'exit': both pipes are drained, so the output is complete.
    this.child.on('close', (code, signal) => {
      running.delete(this.child);
      this.exitedAt = Date.now();
      this.exit = { code, signal };
      this.notify();
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The pino JSON lines written to stdout so far. */
  logLines(): Record<string, unknown>[] {
    const lines: Record<string, unknown>[] = [];
    for (const line of this.stdout.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // a partial line: not complete yet
      }
    }
    return lines;
  }

  /** Resolves with the first log line whose msg is `msg`. */
  waitForLog(msg: string, timeoutMs = 20_000): Promise<Record<string, unknown>> {
    return this.waitFor(`the log line "${msg}"`, timeoutMs, () => this.logLines().find((line) => line.msg === msg));
  }

  /** Resolves once `check` returns something other than undefined; rechecked on every output. */
  waitFor<T>(what: string, timeoutMs: number, check: () => T | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const done = (error?: Error, value?: T) => {
        clearTimeout(timer);
        this.watchers.delete(watcher);
        if (error) reject(error);
        else resolve(value as T);
      };
      const watcher = () => {
        let value: T | undefined;
        try {
          value = check();
        } catch (error) {
          return done(error as Error);
        }
        if (value !== undefined) return done(undefined, value);
        if (this.exit) done(new Error(`the process exited (${describeExit(this.exit)}) before ${what}\n${this.transcript()}`));
      };
      const timer = setTimeout(() => done(new Error(`no ${what} within ${timeoutMs} ms\n${this.transcript()}`)), timeoutMs);
      this.watchers.add(watcher);
      watcher();
    });
  }

  /** Resolves with the exit once the process has ended; fails after `timeoutMs`. */
  waitForExit(timeoutMs = 10_000): Promise<Exit> {
    return this.waitFor('exit', timeoutMs, () => this.exit);
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.exit) this.child.kill(signal);
  }

  kill(): void {
    this.signal('SIGKILL');
  }

  transcript(): string {
    return `--- stdout\n${this.stdout}\n--- stderr\n${this.stderr}`;
  }

  private notify(): void {
    for (const watcher of [...this.watchers]) watcher();
  }
}

export interface CliResult extends Exit {
  stdout: string;
  stderr: string;
  /** stdout and stderr, for assertion messages. */
  transcript: string;
}

/** Runs `sms-gateway ARGS` to completion with `env` (config variables not in it are unset). */
export async function runCli(args: string[], env: Env, timeoutMs = 30_000): Promise<CliResult> {
  const run = new GatewayProcess(args, env);
  try {
    const exit = await run.waitForExit(timeoutMs);
    return { ...exit, stdout: run.stdout, stderr: run.stderr, transcript: `sms-gateway ${args.join(' ')}\n${run.transcript()}` };
  } finally {
    run.kill();
  }
}

function describeExit(exit: Exit): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}

/** A stack trace line: never part of what a command shows its user. */
export const STACK_FRAME = /\n\s+at /;

/** The one JSON document a --json command printed on stdout. */
export function jsonOf(result: CliResult): any {
  try {
    return JSON.parse(result.stdout);
  } catch {
    throw new Error(`stdout is not one JSON document\n${result.transcript}`);
  }
}

export function expectOk(result: CliResult): void {
  expect(result.code, result.transcript).to.equal(0);
}

/** A refused command: non-zero exit (or exactly `code`), nothing on stdout, a message and no stack trace. */
export function expectRefused(result: CliResult, code?: number): void {
  if (code === undefined) expect(result.code, result.transcript).to.be.a('number').and.not.equal(0);
  else expect(result.code, result.transcript).to.equal(code);
  expect(result.stdout, result.transcript).to.equal('');
  expect(result.stderr, result.transcript).not.to.match(STACK_FRAME);
  expect(result.stderr, result.transcript).not.to.contain('unexpected error');
}
