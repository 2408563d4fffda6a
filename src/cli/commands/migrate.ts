import type { Output } from '../output.ts';
import { withDatabase } from '../context.ts';

export async function migrateCommand(_args: string[], out: Output): Promise<void> {
  const applied = await withDatabase(async (_db, _logger, applied) => applied);
  out.result({ applied }, () =>
    applied.length > 0 ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'database schema was already up to date',
  );
}
