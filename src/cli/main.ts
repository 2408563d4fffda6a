// The `sms-gateway` command line. Each command lives in its own file under commands/.
import { ConfigError } from '../config.ts';
import { AppError, StartupError } from '../common/errors.ts';
import { DataDirLockedError } from '../storage/data-dir-lock.ts';
import { accountsCommand } from './commands/accounts.ts';
import { devicesCommand } from './commands/devices.ts';
import { keysCommand } from './commands/keys.ts';
import { migrateCommand } from './commands/migrate.ts';
import { serveCommand } from './commands/serve.ts';
import { simulateCommand } from './commands/simulate.ts';
import { webhooksCommand } from './commands/webhooks.ts';
import { usersCommand } from './commands/users.ts';
import { CliError, createOutput, type Output } from './output.ts';

type Command = (args: string[], out: Output) => Promise<void>;

const COMMANDS: Record<string, { run: Command; help: string }> = {
  serve: { run: serveCommand, help: 'run the gateway (HTTP API and device channel)' },
  migrate: { run: migrateCommand, help: 'bring the database schema up to date' },
  accounts: { run: accountsCommand, help: 'accounts create NAME' },
  keys: { run: keysCommand, help: 'keys create|list|revoke: API keys' },
  users: { run: usersCommand, help: 'users create|list|reset-password: people who log in to the panel' },
  devices: { run: devicesCommand, help: 'devices register|token: a device\'s credentials and pairing URL' },
  webhooks: { run: webhooksCommand, help: 'webhooks create|list|delete: webhook endpoints' },
  simulate: { run: simulateCommand, help: 'simulate --devices N: run simulated phones against a gateway' },
};

const HELP = `sms-gateway: self-hosted SMS gateway

usage: sms-gateway <command> [options] [--json]

commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(10)} ${command.help}`)
  .join('\n')}

--json prints one JSON document, for scripts. Configuration comes from environment variables (README).`;

export async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const args = argv.filter((arg) => arg !== '--json');
  const [name, ...rest] = args;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    // Asked for: help on stdout. Nothing asked: a usage error, on stderr.
    (name ? process.stdout : process.stderr).write(`${HELP}\n`);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`unknown command "${name}"\n\n${HELP}\n`);
    return 2;
  }
  try {
    await command.run(rest, createOutput(json));
    return Number(process.exitCode ?? 0);
  } catch (error) {
    return reportError(error, json);
  }
}

function reportError(error: unknown, json: boolean): number {
  const known =
    error instanceof CliError ||
    error instanceof ConfigError ||
    error instanceof AppError ||
    error instanceof DataDirLockedError ||
    error instanceof StartupError;
  const message = known ? (error as Error).message : `unexpected error: ${(error as Error)?.stack ?? String(error)}`;
  process.stderr.write(json ? `${JSON.stringify({ error: { message } })}\n` : `error: ${message}\n`);
  if (error instanceof CliError) return error.exitCode;
  return 1;
}
