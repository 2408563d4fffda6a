// The deployment's own tools, run as they are installed: Debian's docker-compose and haproxy.
// A tool that is missing fails the test that needs it, saying which Debian package brings it:
// a check that quietly skipped would let a broken compose file or balancer config through.
import { execFile } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { REPO_ROOT } from '../support/cli.ts';

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `command` in the repository's root and resolves with how it ended; bounded by `timeoutMs`. */
export function runTool(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { cwd: REPO_ROOT, env: options.env ?? process.env, timeout: options.timeoutMs ?? 20_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(new Error(`${command} is not installed: apt-get install ${DEBIAN_PACKAGES[command] ?? command} (.ci/run does)`));
        return;
      }
      if (error?.killed) {
        reject(new Error(`${command} ${args.join(' ')} did not finish within ${options.timeoutMs ?? 20_000} ms`));
        return;
      }
      const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
      resolve({ code, stdout, stderr });
    });
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

const DEBIAN_PACKAGES: Record<string, string> = {
  'docker-compose': 'docker-compose',
  haproxy: 'haproxy',
};

/**
 * The Python that Debian's docker-compose (1.x, written in Python) runs on, named by its first
 * line: that one has the YAML module compose itself depends on, whatever other Python is first
 * on PATH. Compose 1.x prints its configuration as YAML only.
 */
export function composePython(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const path = join(dir, 'docker-compose');
    if (!existsSync(path)) continue;
    const shebang = /^#!\s*(\S+)/.exec(firstBytes(path, 200));
    if (shebang) return shebang[1]!;
  }
  return 'python3';
}

/** The start of a file (a script's first line), without reading a whole binary. */
function firstBytes(path: string, count: number): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(count);
    return buffer.subarray(0, readSync(fd, buffer, 0, count, 0)).toString('latin1');
  } finally {
    closeSync(fd);
  }
}
