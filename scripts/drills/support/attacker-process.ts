// Runs half-open-attacker.ts as a child process (its sockets are its own descriptors, not the
// gateway's) and collects the JSON line it prints every second about what it holds.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface AttackerReport {
  done: boolean;
  open: number;
  opened: number;
  closedByGateway: number;
  answered408: number;
  failedToConnect: number;
  oldestOpenMs: number;
  longestLivedMs: number;
}

export interface Attacker {
  /** Every report so far, oldest first. */
  readonly reports: AttackerReport[];
  /** Resolves when the attacker has exited (after its HALF_OPEN_SECONDS). */
  readonly ended: Promise<void>;
  readonly running: () => boolean;
  kill(): void;
}

/** Starts the attacker with its HALF_OPEN_* settings. */
export function startAttacker(settings: Record<string, string>): Attacker {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./half-open-attacker.ts', import.meta.url))], {
    env: { ...process.env, ...settings },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const reports: AttackerReport[] = [];
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      try {
        reports.push(JSON.parse(buffer.slice(0, newline)) as AttackerReport);
      } catch {
        // not a report
      }
      buffer = buffer.slice(newline + 1);
    }
  });
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    reports,
    ended,
    running: () => child.exitCode === null && child.signalCode === null,
    kill: () => {
      if (child.exitCode === null) child.kill();
    },
  };
}
