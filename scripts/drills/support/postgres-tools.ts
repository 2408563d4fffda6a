// PostgreSQL's own server tools (initdb, pg_ctl, pg_basebackup) run on clusters a drill makes for
// itself in a directory of its own: as the postgres user when the drill runs as root, since the
// server refuses to run as root.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const CLUSTER_USER = 'postgres';

/** The newest PostgreSQL server binaries installed the Debian/Ubuntu way, or PG_BIN. */
function postgresBinDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'pg_basebackup'))) : [];
  if (versions.length === 0) throw new Error(`no PostgreSQL server binaries under ${root} (set PG_BIN to the directory holding initdb, pg_ctl and pg_basebackup)`);
  versions.sort((a, b) => Number(b) - Number(a));
  return join(root, versions[0]!, 'bin');
}

export class PostgresTools {
  private constructor(
    private readonly bin: string,
    /** The directory the clusters live in, owned by the user the servers run as. */
    readonly dir: string,
    private readonly asRoot: boolean,
  ) {}

  /** A new directory for a drill's clusters (`label` names it), and the tools to run there. */
  static inNewDirectory(label: string): PostgresTools {
    const dir = mkdtempSync(join(tmpdir(), `sgw-${label}-pg-`));
    const asRoot = userInfo().uid === 0;
    if (asRoot) {
      const uid = Number(execFileSync('id', ['-u', CLUSTER_USER]).toString().trim());
      const gid = Number(execFileSync('id', ['-g', CLUSTER_USER]).toString().trim());
      chownSync(dir, uid, gid);
    }
    return new PostgresTools(postgresBinDir(), dir, asRoot);
  }

  /** The command line that runs `tool`, as the postgres user when this process is root. */
  command(tool: string, args: string[]): [string, string[]] {
    const path = join(this.bin, tool);
    return this.asRoot ? ['runuser', ['-u', CLUSTER_USER, '--', path, ...args]] : [path, args];
  }

  /** Runs `tool` to its end; its stderr is the error when it fails. */
  async run(tool: string, args: string[]): Promise<void> {
    const [file, argv] = this.command(tool, args);
    try {
      await promisify(execFile)(file, argv, { cwd: this.dir });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr?.toString().trim();
      throw new Error(`${tool} failed: ${stderr || (error as Error).message}`);
    }
  }
}
