// Log lines for a person at a terminal: "12:04:31.250 INFO  listening  port=3000". The JSON
// line pino makes (already redacted) is read back and rewritten, so what is shown is exactly
// what a log collector would get, only laid out for reading. Kept here rather than taken from
// pino-pretty: a few dozen lines instead of a dependency with its own dependencies.
import type { DestinationStream } from 'pino';

const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'TRACE', color: '90' },
  20: { name: 'DEBUG', color: '36' },
  30: { name: 'INFO', color: '32' },
  40: { name: 'WARN', color: '33' },
  50: { name: 'ERROR', color: '31' },
  60: { name: 'FATAL', color: '41;97' },
};

/** Fields every line has, or that only help once logs of several processes are mixed. */
const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service', 'node']);

interface Writable {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/** A pino destination that writes each line to `out` laid out for reading, in colour on a terminal. */
export function prettyDestination(out: Writable): DestinationStream {
  const colors = out.isTTY === true && !process.env.NO_COLOR;
  const paint = (code: string, text: string) => (colors ? `\x1b[${code}m${text}\x1b[0m` : text);
  return {
    write(line: string) {
      out.write(formatLine(line, paint));
    },
  };
}

export function formatLine(line: string, paint: (code: string, text: string) => string = (_code, text) => text): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = LEVELS[entry.level as number] ?? { name: String(entry.level), color: '0' };
  const time = typeof entry.time === 'number' ? new Date(entry.time).toTimeString().slice(0, 8) + `.${String(entry.time % 1000).padStart(3, '0')}` : '';
  const fields: string[] = [];
  let stack = '';
  for (const [name, value] of Object.entries(entry)) {
    if (HIDDEN.has(name) || value === undefined) continue;
    if (name === 'err' && value && typeof value === 'object') {
      const error = value as { message?: unknown; stack?: unknown };
      fields.push(`err=${quote(String(error.message ?? ''))}`);
      if (typeof error.stack === 'string') stack = `\n${error.stack.replace(/^/gm, '    ')}`;
      continue;
    }
    fields.push(`${name}=${typeof value === 'string' ? quote(value) : JSON.stringify(value)}`);
  }
  const message = typeof entry.msg === 'string' ? entry.msg : '';
  const rest = fields.length > 0 ? `  ${paint('2', fields.join(' '))}` : '';
  return `${paint('2', time)} ${paint(level.color, level.name.padEnd(5))} ${message}${rest}${stack}\n`;
}

/** A value as one word: quoted (JSON) only when it holds spaces, quotes or is empty. */
function quote(text: string): string {
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
}
