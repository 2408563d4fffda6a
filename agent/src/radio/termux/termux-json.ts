// Termux:API commands print JSON written by Android code. These read it without trusting its
// shape: a field of the wrong type is treated as absent, never as a crash.
import { TermuxCommandError } from './run-termux-command.ts';
import { scrubPhoneNumbers } from './scrub.ts';

export type JsonObject = { readonly [key: string]: unknown };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses a command's output. Termux:API reports refusals (a missing permission, mostly) as
 * `{"error": "..."}` on standard output with exit status 0, so that object becomes an error here.
 */
export function parseTermuxJson(command: string, stdout: string): unknown {
  if (stdout.trim() === '') {
    throw new TermuxCommandError(command, 'printed nothing (is the Termux:API app installed and allowed to run?)');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new TermuxCommandError(command, `printed something that is not JSON: ${scrubPhoneNumbers(stdout.trim().slice(0, 120))}`);
  }
  const refusal = termuxRefusal(parsed);
  if (refusal !== undefined) throw new TermuxCommandError(command, refusal);
  return parsed;
}

/** The text of a `{"error": "..."}` answer, or undefined for any other answer. */
export function termuxRefusal(parsed: unknown): string | undefined {
  if (isJsonObject(parsed) && typeof parsed.error === 'string') return scrubPhoneNumbers(parsed.error);
  return undefined;
}

export function parseTermuxArray(command: string, stdout: string): JsonObject[] {
  const parsed = parseTermuxJson(command, stdout);
  if (!Array.isArray(parsed)) throw new TermuxCommandError(command, 'printed JSON that is not a list');
  return parsed.filter(isJsonObject);
}

export function parseTermuxObject(command: string, stdout: string): JsonObject {
  const parsed = parseTermuxJson(command, stdout);
  if (!isJsonObject(parsed)) throw new TermuxCommandError(command, 'printed JSON that is not an object');
  return parsed;
}

export function stringField(object: JsonObject, key: string): string | undefined {
  const value = object[key];
  return typeof value === 'string' ? value : undefined;
}

export function numberField(object: JsonObject, key: string): number | undefined {
  const value = object[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function booleanField(object: JsonObject, key: string): boolean | undefined {
  const value = object[key];
  return typeof value === 'boolean' ? value : undefined;
}
