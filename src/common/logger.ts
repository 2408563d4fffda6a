// One logger for the process; components take child loggers (`logger.child({ component })`).
// Secrets and message text must never reach a log line: the redact paths below are the safety
// net, and callers log masked phone numbers (maskPhone) rather than raw ones.
import { pino, type Logger } from 'pino';
import type { LogFormat, LogLevel } from '../config.ts';
import { prettyDestination } from './pretty-log.ts';

export type { Logger };

// `err.message` stays readable on purpose: our error messages never quote SMS text or secrets.
const REDACT = [
  'authorization',
  'password',
  'token',
  'secret',
  'apiKey',
  'phone',
  'text',
  '*.authorization',
  '*.password',
  '*.token',
  '*.secret',
  '*.apiKey',
  '*.phone',
  '*.text',
  'sms.message',
  'body.message',
  'req.headers.authorization',
];

/**
 * `destination`: stdout when none. `node`: the node id (NODE_ID), on every line, so that the
 * logs of several nodes can be told apart once collected. `format` (LOG_FORMAT): JSON lines for
 * collectors, or lines for people; when not given, for people exactly when the destination is a
 * terminal, since a terminal is read by someone and anything else is usually a collector.
 */
export function createLogger(level: LogLevel, destination?: pino.DestinationStream, node?: string, format?: LogFormat): Logger {
  const target = (destination ?? process.stdout) as pino.DestinationStream & { isTTY?: boolean };
  const pretty = format === 'pretty' || (format === undefined && target.isTTY === true);
  return pino(
    {
      level,
      base: node === undefined ? { service: 'sms-gateway' } : { service: 'sms-gateway', node },
      redact: { paths: REDACT, censor: '[redacted]' },
    },
    pretty ? prettyDestination(target) : destination,
  );
}

/** "+79161234567" -> "+7916*****67": enough to tell numbers apart in a log, not enough to dial. */
export function maskPhone(phone: string): string {
  if (phone.length <= 6) return '*'.repeat(phone.length);
  return phone.slice(0, 5) + '*'.repeat(phone.length - 7) + phone.slice(-2);
}

/**
 * The logger with the node id bound, unless it carries one already (a logger made without
 * one, as tests and the CLI make them, gets it here; no line ever shows it twice).
 */
export function withNode(logger: Logger, node: string): Logger {
  return logger.bindings().node === undefined ? logger.child({ node }) : logger;
}
