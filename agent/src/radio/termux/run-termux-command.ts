// Runs one Termux:API command (termux-sms-send, termux-battery-status...) and returns what it
// printed. Always execFile with an argument array, never a shell: a message or a number is passed
// to the command byte for byte, whatever quotes or semicolons it holds.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { scrubPhoneNumbers } from './scrub.ts';

export interface CommandSettings {
  /** Directory holding the termux-* commands; undefined: found on PATH (of `env`, when given). */
  binDir: string | undefined;
  /** Environment for the command; undefined: the agent's own. */
  env: NodeJS.ProcessEnv | undefined;
  timeoutMs: number;
  /** Told how each command ended (undefined: it exited with 0): what the radio's health is read from. */
  ended?: (command: string, error: TermuxCommandError | undefined) => void;
}

export const INSTALL_HINT =
  'install the Termux:API package (pkg install termux-api) and the Termux:API app (from F-Droid, like Termux itself)';

/** A Termux:API command that could not run or said it failed; the message never holds the text sent. */
export class TermuxCommandError extends Error {
  constructor(
    readonly command: string,
    message: string,
    /** missing: not installed or not executable; no_answer: killed after the timeout; failed: anything else. */
    readonly reason: 'missing' | 'no_answer' | 'failed' = 'failed',
  ) {
    super(`${command}: ${message}`);
    this.name = 'TermuxCommandError';
  }
}

export interface CommandOutput {
  stdout: string;
  stderr: string;
}

// Big enough for a page of long SMS; a runaway command is cut off rather than filling memory.
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

/**
 * Runs `command` with `args`, writes `input` (if any) to its standard input, and resolves with its
 * output once it exits with 0. Rejects with a TermuxCommandError when it is missing, times out or
 * exits otherwise.
 */
export function runTermuxCommand(
  settings: CommandSettings,
  command: string,
  args: readonly string[],
  input?: string,
): Promise<CommandOutput> {
  const file = settings.binDir === undefined ? command : join(settings.binDir, command);
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      { env: settings.env, timeout: settings.timeoutMs, maxBuffer: MAX_OUTPUT_BYTES, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (!error) {
          settings.ended?.(command, undefined);
          resolve({ stdout, stderr });
          return;
        }
        const failure = new TermuxCommandError(command, describeFailure(command, error, stderr, stdout, settings.timeoutMs), reasonOf(error));
        settings.ended?.(command, failure);
        reject(failure);
      },
    );
    // The command may exit before reading all of its input (a usage error); that is reported
    // through its exit status, not as an unhandled EPIPE.
    child.stdin?.on('error', () => {});
    child.stdin?.end(input);
  });
}

interface ExecFailure extends Error {
  code?: string | number | null;
  killed?: boolean;
  signal?: NodeJS.Signals | null;
}

function reasonOf(error: ExecFailure): TermuxCommandError['reason'] {
  if (error.code === 'ENOENT' || error.code === 'EACCES') return 'missing';
  if (error.killed || error.signal) return 'no_answer';
  return 'failed';
}

function describeFailure(command: string, error: ExecFailure, stderr: string, stdout: string, timeoutMs: number): string {
  const hint = command.startsWith('termux-') ? `: ${INSTALL_HINT}` : '';
  if (error.code === 'ENOENT') return `command not found${hint}`;
  if (error.code === 'EACCES') return `command not executable${hint}`;
  // Without the Termux:API app the commands wait forever for an answer that never comes.
  if (error.killed || error.signal) {
    return `no answer within ${Math.round(timeoutMs / 1000)} s (is the Termux:API app installed, and allowed to run in the background?)`;
  }
  const said = firstLine(stderr) || firstLine(stdout);
  const status = typeof error.code === 'number' ? `exit status ${error.code}` : error.message;
  return said ? `${said} (${status})` : status;
}

function firstLine(text: string): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? '';
  return scrubPhoneNumbers(line.trim()).slice(0, 300);
}
