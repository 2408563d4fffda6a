// The `sms-gateway` command line. Each command lives in its own file under commands/.
import { ConfigError } from '../config.ts';
import { AppError, StartupError } from '../common/errors.ts';
import { DataDirLockedError } from '../storage/data-dir-lock.ts';
import { PACKAGE_VERSION } from '../common/package-info.ts';
import { usePrivateUmask } from '../storage/data-dir-permissions.ts';
import { CliError, createOutput, type Output } from './output.ts';

type Command = (args: string[], out: Output) => Promise<void>;

/**
 * A command's code is loaded only when that command runs: `--version`, `--help` or `accounts
 * create` should not pay for loading the whole gateway (the HTTP server, the broker, SMPP, MCP),
 * which costs more than a second of CPU on a small machine.
 */
interface LoadedCommand {
  run: Command;
  usage: () => string;
}

const COMMANDS: Record<string, { help: string; load: () => Promise<LoadedCommand> }> = {
  serve: { help: 'run the gateway (HTTP API and device channel); --help lists its settings', load: () => import('./commands/serve.ts').then((m) => ({ run: m.serveCommand, usage: m.serveUsage })) },
  migrate: { help: 'bring the database schema up to date', load: () => import('./commands/migrate.ts').then((m) => ({ run: m.migrateCommand, usage: () => m.USAGE })) },
  accounts: { help: 'accounts create NAME', load: () => import('./commands/accounts.ts').then((m) => ({ run: m.accountsCommand, usage: () => m.USAGE })) },
  keys: { help: 'keys create|list|revoke: API keys', load: () => import('./commands/keys.ts').then((m) => ({ run: m.keysCommand, usage: () => m.USAGE })) },
  users: { help: 'users create|list|reset-password: people who log in to the panel', load: () => import('./commands/users.ts').then((m) => ({ run: m.usersCommand, usage: () => m.USAGE })) },
  devices: { help: 'devices register|token|list: a device\'s credentials and pairing URL, the phones and who is online', load: () => import('./commands/devices.ts').then((m) => ({ run: m.devicesCommand, usage: () => m.USAGE })) },
  sms: { help: 'sms send|list: send an SMS or list the latest, through a running gateway (SMS_GATEWAY_KEY)', load: () => import('./commands/sms.ts').then((m) => ({ run: m.smsCommand, usage: () => m.USAGE })) },
  webhooks: { help: 'webhooks create|list|delete: webhook endpoints', load: () => import('./commands/webhooks.ts').then((m) => ({ run: m.webhooksCommand, usage: () => m.USAGE })) },
  upstreams: { help: 'upstreams create|list|show|update|enable|disable|delete: providers that carry an account\'s SMS', load: () => import('./commands/upstreams.ts').then((m) => ({ run: m.upstreamsCommand, usage: () => m.USAGE })) },
  routes: { help: 'routes show|set|clear: when an account\'s SMS go to its phones or an upstream', load: () => import('./commands/routes.ts').then((m) => ({ run: m.routesCommand, usage: () => m.USAGE })) },
  twilio: { help: 'twilio credentials create|list|delete: credentials for the Twilio-compatible API', load: () => import('./commands/twilio.ts').then((m) => ({ run: m.twilioCommand, usage: () => m.USAGE })) },
  smpp: { help: 'smpp credentials create|list|delete: what ESMEs bind with', load: () => import('./commands/smpp.ts').then((m) => ({ run: m.smppCommand, usage: () => m.USAGE })) },
  simulate: { help: 'simulate --devices N | --pairing URL: run simulated phones against a gateway', load: () => import('./commands/simulate.ts').then((m) => ({ run: m.simulateCommand, usage: () => m.USAGE })) },
  mcp: { help: 'mcp: an MCP server on stdio for AI assistants (SMS_GATEWAY_KEY, SMS_GATEWAY_URL)', load: () => import('./commands/mcp.ts').then((m) => ({ run: m.mcpCommand, usage: () => m.USAGE })) },
  e2e: { help: 'e2e encrypt|decrypt: end-to-end ciphertext for encrypted SMS, offline', load: () => import('./commands/e2e.ts').then((m) => ({ run: m.e2eCommand, usage: () => m.USAGE })) },
};

const HELP = `sms-gateway: self-hosted SMS gateway

usage: sms-gateway <command> [options] [--json]
       sms-gateway <command> --help
       sms-gateway --version

commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(10)} ${command.help}`)
  .join('\n')}

--json prints one JSON document, for scripts (mcp, whose stdout is the protocol, takes none).
Configuration comes from environment variables: sms-gateway serve --help lists them.`;

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
    (name ? process.stdout : process.stderr).write(`${topic ? (await topic.load()).usage() : HELP}\n`);
    return name ? 0 : 2;
  }
  const known = COMMANDS[name];
  if (!known) {
    process.stderr.write(`unknown command "${name}"\n\n${HELP}\n`);
    return 2;
  }
  const command = await known.load();
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
