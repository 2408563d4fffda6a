// A request body given to a command as JSON (inline, in a file, or on stdin), checked by the very
// schema the HTTP API checks it with, so that a refusal names the same fields in the same words.
import { text } from 'node:stream/consumers';
import type { Static, TSchema } from '@sinclair/typebox';
import { AppError } from '../common/errors.ts';
import { check, compile, refuseNul } from '../http/validation.ts';
import { CliError } from './output.ts';
import { textOfFile } from './secret-file.ts';

/** Larger than any body the API takes (its routes and upstreams are a few kilobytes). */
const MAX_BYTES = 1024 * 1024;

/** The text of `file`, or of stdin when it is "-"; `flag` names the option in errors. */
export async function readInput(flag: string, file: string): Promise<string> {
  const body = file === '-' ? await text(process.stdin) : textOfFile(flag, file);
  if (Buffer.byteLength(body) > MAX_BYTES) throw new CliError(`${flag} ${file}: larger than ${MAX_BYTES} bytes`);
  return body;
}

/** `raw` parsed as JSON; `source` says where it came from in the error. */
export function parseJson(source: string, raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    // Only where it broke: the parser's own message quotes the text around it, which may be a
    // password in a settings file.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new CliError(`${source} is not valid JSON${position === undefined ? '' : ` (at character ${position})`}`);
  }
}

/** A checker of bodies of this schema: the body, or a CliError naming every field refused. */
export function bodyChecker<S extends TSchema>(schema: S): (source: string, body: unknown) => Static<S> {
  const validate = compile(schema, 'body');
  return (source, body) => {
    try {
      refuseNul(body, 'body');
      check(validate, body, 'body');
    } catch (error) {
      throw refusal(source, error);
    }
    return body as Static<S>;
  };
}

/** An AppError of bad input as a command tells it: every problem, each naming its field. */
export function refusal(source: string, error: unknown): unknown {
  if (!(error instanceof AppError) || error.status !== 400) return error;
  // Each problem names its field, as the API's details do: the schema's words begin with it, the service's may not.
  const problems = error.details?.length ? error.details.map(({ field, message }) => (message.startsWith(field) ? message : `${field}: ${message}`)) : [error.message];
  return new CliError(`${source} refused: ${problems.join('; ')}`);
}
