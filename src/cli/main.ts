// The `sms-gateway` command line. Each command lives in its own file under commands/.
import { ConfigError } from '../config.ts';
import { AppError, StartupError } from '../common/errors.ts';
import { DataDirLockedError } from '../storage/data-dir-lock.ts';
import { PACKAGE_VERSION } from '../common/package-info.ts';
import { usePrivateUmask } from '../storage/data-dir-permissions.ts';
import { accountsCommand, USAGE as ACCOUNTS_USAGE } from './commands/accounts.ts';
import { devicesCommand, USAGE as DEVICES_USAGE } from './commands/devices.ts';
import { keysCommand, USAGE as KEYS_USAGE } from './commands/keys.ts';
import { migrateCommand, USAGE as MIGRATE_USAGE } from './commands/migrate.ts';
import { serveCommand, serveUsage } from './commands/serve.ts';
import { simulateCommand, USAGE as SIMULATE_USAGE } from './commands/simulate.ts';
import { webhooksCommand, USAGE as WEBHOOKS_USAGE } from './commands/webhooks.ts';
import { smppCommand, USAGE as SMPP_USAGE } from './commands/smpp.ts';
import { usersCommand, USAGE as USERS_USAGE } from './commands/users.ts';
import { twilioCommand, USAGE as TWILIO_USAGE } from './commands/twilio.ts';
import { e2eCommand, USAGE as E2E_USAGE } from './commands/e2e.ts';
import { mcpCommand, USAGE as MCP_USAGE } from './commands/mcp.ts';
import { CliError, createOutput, type Output } from './output.ts';

type Command = (args: string[], out: Output) => Promise<void>;

const COMMANDS: Record<string, { run: Command; help: string; usage: () => string }> = {
  serve: { run: serveCommand, help: 'run the gateway (HTTP API and device channel); --help lists its settings', usage: serveUsage },
  migrate: { run: migrateCommand, help: 'bring the database schema up to date', usage: () => MIGRATE_USAGE },
  accounts: { run: accountsCommand, help: 'accounts create NAME', usage: () => ACCOUNTS_USAGE },
  keys: { run: keysCommand, help: 'keys create|list|revoke: API keys', usage: () => KEYS_USAGE },
  users: { run: usersCommand, help: 'users create|list|reset-password: people who log in to the panel', usage: () => USERS_USAGE },
  devices: { run: devicesCommand, help: 'devices register|token: a device\'s credentials and pairing URL', usage: () => DEVICES_USAGE },
  webhooks: { run: webhooksCommand, help: 'webhooks create|list|delete: webhook endpoints', usage: () => WEBHOOKS_USAGE },
  twilio: { run: twilioCommand, help: 'twilio credentials create|list|delete: credentials for the Twilio-compatible API', usage: () => TWILIO_USAGE },
  smpp: { run: smppCommand, help: 'smpp credentials create|list|delete: what ESMEs bind with', usage: () => SMPP_USAGE },
  simulate: { run: simulateCommand, help: 'simulate --devices N | --pairing URL: run simulated phones against a gateway', usage: () => SIMULATE_USAGE },
  mcp: { run: mcpCommand, help: 'mcp: an MCP server on stdio for AI assistants (SMS_GATEWAY_KEY, SMS_GATEWAY_URL)', usage: () => MCP_USAGE },
  e2e: { run: e2eCommand, help: 'e2e encrypt|decrypt: end-to-end ciphertext for encrypted SMS, offline', usage: () => E2E_USAGE },
};

const HELP = `sms-gateway: self-hosted SMS gateway

usage: sms-gateway <command> [options] [--json]
       sms-gateway <command> --help
       sms-gateway --version

commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(10)} ${command.help}`)
  .join('\n')}

--json prints one JSON document, for scripts. Configuration comes from environment variables:
sms-gateway serve --help lists them.`;

const HELP_FLAGS = new Set(['--help', '-h']);

export async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const args = argv.filter((arg) => arg !== '--json');
  const [name, ...rest] = args;
  if (name === '--version' || name === '-V' || name === 'version') {
    process.stdout.write(json ? `${JSON.stringify({ version: PACKAGE_VERSION })}\n` : `sms-gateway ${PACKAGE_VERSION}\n`);
    return 0;
  }
  if (!name || name === 'help' || HELP_FLAGS.has(name)) {
    // `help COMMAND` is that command's help.
    const topic = name === 'help' && rest[0] ? COMMANDS[rest[0]] : undefined;
    // Asked for: help on stdout. Nothing asked: a usage error, on stderr.
    (name ? process.stdout : process.stderr).write(`${topic ? topic.usage() : HELP}\n`);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`unknown command "${name}"\n\n${HELP}\n`);
    return 2;
  }
  // Asked for, the help is an answer, not an error: stdout and exit 0, whatever else is given.
  if (rest.some((arg) => HELP_FLAGS.has(arg))) {
    process.stdout.write(`${command.usage()}\n`);
    return 0;
  }
  // Everything this process writes (the embedded database, the simulator's device file, the
  // first-start banner) is its user's alone, whatever umask it was started with.
  usePrivateUmask();
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
