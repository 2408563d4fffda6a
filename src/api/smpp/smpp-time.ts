// schedule_delivery_time and validity_period: the codec has read the SMPP time (absolute,
// YYMMDDhhmmsstnnp with its quarter-hour offset, or relative, ...R from now) into a Date.
// Empty means none; a time that cannot be read is refused with the field's own code.
import { SmppRefusal, type CommandStatus } from './command-status.ts';

export function readSmppTime(value: unknown, status: CommandStatus, field: string): Date | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  throw new SmppRefusal(status, `${field} is not an SMPP time (YYMMDDhhmmsstnnp, or ...R for a relative one)`);
}
