// The end-to-end passphrase for the commands that need one (e2e, simulate). From the environment
// or a file by preference: a flag's value is visible to every user in the process list.
import { CliError } from './output.ts';
import { firstLineOfFile } from './secret-file.ts';

/** Longer than any passphrase a person types, short enough that no one pastes a file by mistake. */
const MAX_PASSPHRASE = 1024;

/** --passphrase, --passphrase-file (its first line) or SMS_GATEWAY_PASSPHRASE; undefined when none is given. */
export function passphraseFrom(flag: string | undefined, file: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (flag !== undefined && file !== undefined) throw new CliError('give the passphrase once: --passphrase or --passphrase-file, not both');
  let value: string | undefined;
  let source: string;
  if (flag !== undefined) {
    [value, source] = [flag, '--passphrase'];
  } else if (file !== undefined) {
    [value, source] = [firstLineOfFile('--passphrase-file', file), `--passphrase-file ${file}`];
  } else {
    [value, source] = [env.SMS_GATEWAY_PASSPHRASE, 'SMS_GATEWAY_PASSPHRASE'];
    if (value === undefined) return undefined;
  }
  if (value.length === 0) throw new CliError(`${source}: the passphrase is empty`);
  if (value.length > MAX_PASSPHRASE) throw new CliError(`${source}: the passphrase is longer than ${MAX_PASSPHRASE} characters`);
  return value;
}
