// A Termux-like sandbox for the install script, the guide and the boot script: a temporary HOME
// and PREFIX, a PATH of PREFIX/bin and the machine's own tools (without Node.js and npm, which
// the stand-in `pkg` installs), the Termux:API stand-ins of termux-bin/ behind the commands that
// `pkg install termux-api` brings, and npm pointed at no registry at all. The agent runs for real
// against a real gateway; only Android is played.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { eventually } from '../../support/eventually.ts';
import { STANDIN_BIN, TermuxPhone } from './termux-standin.ts';

/** Commands of the machine the sandbox hides: Termux has them only once `pkg` installed them. */
const NOT_ON_A_BARE_PHONE = new Set(['node', 'npm', 'npx', 'corepack']);
const RUNNER = fileURLToPath(new URL('../../../agent/src/cli/run.ts', import.meta.url));

export interface SandboxOptions {
  /**
   * 'pkg': no Node.js until `pkg install nodejs`, no agent until something installs it (the install
   * script). 'source': Node.js is there, and `sms-gateway-agent` runs the agent's sources.
   */
  agent: 'pkg' | 'source';
}

export interface Finished {
  code: number | null;
  output: string;
}

export class TermuxSandbox {
  readonly home: string;
  readonly prefix: string;
  private readonly started: ChildProcess[] = [];

  private constructor(
    readonly root: string,
    readonly phone: TermuxPhone,
  ) {
    this.home = join(root, 'home');
    this.prefix = join(root, 'usr');
  }

  static async create(options: SandboxOptions): Promise<TermuxSandbox> {
    const sandbox = new TermuxSandbox(mkdtempSync(join(tmpdir(), 'termux-sandbox-')), await TermuxPhone.create());
    sandbox.build(options);
    return sandbox;
  }

  /** The environment Termux gives its shell (and Termux:Boot its scripts), with the stand-ins' own settings. */
  env(): NodeJS.ProcessEnv {
    return {
      HOME: this.home,
      PREFIX: this.prefix,
      TMPDIR: join(this.prefix, 'tmp'),
      PATH: `${join(this.prefix, 'bin')}:${join(this.root, 'system-bin')}`,
      LANG: 'C.UTF-8',
      // Termux's npm installs globally into PREFIX, as here.
      npm_config_prefix: this.prefix,
      // No registry: whatever npm would fetch fails the install.
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_update_notifier: 'false',
      TERMUX_STANDIN_STATE: this.phone.dir,
      TERMUX_STANDIN_LOG: join(this.phone.dir, 'calls.log'),
      TERMUX_STANDIN_NODE: process.execPath,
    };
  }

  /** Runs `script` with bash (Termux's shell) in HOME, to its end. */
  run(script: string): Promise<Finished> {
    return this.finished(this.start('bash', ['-c', script]));
  }

  /** Starts a command in the sandbox, stopped by remove() if still running. */
  start(command: string, args: string[]): ChildProcess & { output: () => string } {
    const child = spawn(command, args, { cwd: this.home, env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    this.started.push(child);
    return Object.assign(child, { output: () => output });
  }

  finished(child: ChildProcess & { output: () => string }): Promise<Finished> {
    return new Promise((resolve) => child.once('close', (code) => resolve({ code, output: child.output() })));
  }

  /** The agents running on the phone, by the lock files of their state directories. */
  agentPids(): number[] {
    return this.locks()
      .map((lock) => Number(readFileSync(lock, 'utf8').split('\n')[0]))
      // Never this process: a test may write its id into a lock.
      .filter((pid) => pid !== process.pid && alive(pid));
  }

  /**
   * Stops every agent as Android's shutdown does (SIGTERM), and waits until each released its
   * lock (an agent the install script started is no child of this process: its pid alone could
   * outlive it as a zombie).
   */
  async stopAgents(): Promise<void> {
    for (const pid of this.agentPids()) process.kill(pid, 'SIGTERM');
    await eventually('the agents to stop and release their state directories', () => this.locks().length === 0, 10_000);
  }

  private locks(): string[] {
    const root = join(this.home, '.sms-gateway-agent');
    if (!existsSync(root)) return [];
    return [join(root, 'agent.lock'), ...readdirSync(root).map((name) => join(root, name, 'agent.lock'))].filter((lock) => existsSync(lock));
  }

  /** The agent's log (~/.sms-gateway-agent/agent.log), from `from` on. */
  log(from = 0): string {
    const file = join(this.home, '.sms-gateway-agent', 'agent.log');
    return existsSync(file) ? readFileSync(file, 'utf8').slice(from) : '';
  }

  /** What `pkg` was asked, one line per call. */
  pkgCalls(): string[] {
    const file = join(this.prefix, 'pkg.log');
    return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
  }

  async remove(): Promise<void> {
    for (const pid of this.agentPids()) process.kill(pid, 'SIGKILL');
    for (const child of this.started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await this.phone.remove();
    rmSync(this.root, { recursive: true, force: true });
  }

  private build(options: SandboxOptions): void {
    const bin = join(this.prefix, 'bin');
    const systemBin = join(this.root, 'system-bin');
    for (const dir of [this.home, bin, join(this.prefix, 'tmp'), systemBin]) mkdirSync(dir, { recursive: true });
    // The machine's tools (sh, curl, coreutils...), as the Termux bootstrap has them, minus Node.js.
    for (const dir of ['/usr/local/bin', '/usr/bin', '/bin']) {
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir)) {
        if (NOT_ON_A_BARE_PHONE.has(name) || name.startsWith('termux-') || existsSync(join(systemBin, name))) continue;
        symlinkSync(join(dir, name), join(systemBin, name));
      }
    }
    // Android's own getprop, answered by the stand-in.
    writeExecutable(join(systemBin, 'getprop'), `#!/bin/sh\nexec '${join(STANDIN_BIN, 'getprop')}' "$@"\n`);
    const npmCli = realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
    const termuxApi = readdirSync(STANDIN_BIN)
      .filter((name) => name.startsWith('termux-'))
      .map((name) => `printf '#!/bin/sh\\nexec %s "$@"\\n' '${join(STANDIN_BIN, name)}' > "$PREFIX/bin/${name}"; chmod +x "$PREFIX/bin/${name}"`)
      .join('\n      ');
    writeExecutable(
      join(bin, 'pkg'),
      `#!/bin/sh
# Termux's pkg, as far as the install script uses it: "pkg install -y PACKAGE...".
echo "$*" >> "$PREFIX/pkg.log"
[ "$1" = install ] || exit 1
shift
for package in "$@"; do
  case "$package" in
    -y) ;;
    nodejs)
      ln -sf '${process.execPath}' "$PREFIX/bin/node"
      ln -sf '${npmCli}' "$PREFIX/bin/npm" ;;
    termux-api)
      ${termuxApi}
      printf '#!/bin/sh\\necho held >> "$PREFIX/wake-lock.log"\\n' > "$PREFIX/bin/termux-wake-lock"
      chmod +x "$PREFIX/bin/termux-wake-lock" ;;
    *) echo "E: Unable to locate package $package" >&2; exit 100 ;;
  esac
done
`,
    );
    if (options.agent === 'source') {
      execFileSync(join(bin, 'pkg'), ['install', '-y', 'nodejs', 'termux-api'], { env: this.env() });
      rmSync(join(this.prefix, 'pkg.log'));
      const tsx = new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
      writeExecutable(join(bin, 'sms-gateway-agent'), `#!/bin/sh\nexec '${process.execPath}' --import '${tsx}' '${RUNNER}' "$@"\n`);
    }
  }
}

function writeExecutable(path: string, text: string): void {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
