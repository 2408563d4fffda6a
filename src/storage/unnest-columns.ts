// Bulk statements hand PostgreSQL one array per column and unnest them back into rows: one round
// trip and one parameter per column, however many rows.

/** The arrays for `unnest(...)`: for each of `keys` in order, that field of every row. */
export function columnsOf<Row, Key extends keyof Row>(rows: readonly Row[], keys: readonly Key[]): Row[Key][][] {
  return keys.map((key) => rows.map((row) => row[key]));
}
