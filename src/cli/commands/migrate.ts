import type { Output } from '../output.ts';
import { withDatabase } from '../context.ts';
import { parseFlags } from '../flags.ts';

export const USAGE = `usage: sms-gateway migrate [--json]
Brings the database schema up to date (serve does it too at every start), then exits.`;

export async function migrateCommand(args: string[], out: Output): Promise<void> {
  parseFlags(args, {}, USAGE);
  const applied = await withDatabase(async (_db, _logger, applied) => applied);
  out.result({ applied }, () =>
    applied.length > 0 ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'database schema was already up to date',
  );
}
