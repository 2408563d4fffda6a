// `sms-gateway-agent` run from its sources as a child process, the way a boot script runs it,
// with what it prints gathered, and waits for a line it prints (an event of the child, never a
// sleep). Every child still running when the test process exits is killed.
import { spawn, type ChildProcess } from 'node:child_process';

const RUNNER = 'agent/src/cli/run.ts';

export interface AgentProcess {
  child: ChildProcess;
  /** Everything printed so far, stdout and stderr. */
  output: () => string;
  exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export function startAgentProcess(args: string[], env: Record<string, string> = {}): AgentProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return { child, output: () => output, exited };
}

/** Resolves once the run's output matches `pattern`; fails after `timeoutMs` with what it printed. */
export async function printed(run: AgentProcess, pattern: RegExp, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(run.output())) {
    if (Date.now() > deadline || run.child.exitCode !== null) throw new Error(`the agent did not print ${pattern}; it printed:\n${run.output()}`);
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      const done = () => {
        clearTimeout(timer);
        resolve(undefined);
      };
      run.child.stderr!.once('data', done).once('close', done);
    });
  }
}

/** Stops the run as a service manager does (SIGTERM) and resolves with its exit code. */
export async function stopAgentProcess(run: AgentProcess): Promise<number | null> {
  if (run.child.exitCode === null) run.child.kill('SIGTERM');
  return run.exited;
}
