// A secret given as a file (--passphrase-file, --key-file) rather than a flag, so that it stays
// out of the process list and the shell history: the commands read its first line.
import { readFileSync } from 'node:fs';
import { CliError } from './output.ts';

/**
 * The first line of `file`, as is (without its line ending); `flag` names the option in the
 * error when the file cannot be read, with the reason in words a person acts on.
 */
export function firstLineOfFile(flag: string, file: string): string {
  return textOfFile(flag, file).split(/\r?\n/, 1)[0]!;
}

/** The whole of `file`, or a CliError naming `flag` and why it cannot be read. */
export function textOfFile(flag: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(`${flag} ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'not readable by this user' : code === 'EISDIR' ? 'is a directory' : (code ?? 'cannot be read')}`);
  }
}
