// Which tables a source file's SQL names: query-builder calls (`db('sms')`, `trx<Row>('sms')`,
// `.join('devices', ...)`, a helper handed `db, 'sms'`) and SQL text (`from sms`, `join devices d`,
// `update devices`, `insert into sms`). Only names in `tables` count, so prose that happens to
// say "from devices" in a log line is not read as SQL unless it names a table in lowercase.

const escape = (name: string) => name.replace(/[^\w]/g, '\\$&');

export function tablesNamed(text: string, tables: Iterable<string>): Set<string> {
  const names = [...tables].map(escape).join('|');
  const found = new Set<string>();
  if (names === '') return found;
  const code = stripComments(text);
  const builder = new RegExp(
    `(?:\\b(?:db|trx|knex)\\s*(?:<[^>()]*>)?\\(\\s*|\\b(?:db|trx|knex)\\s*,\\s*|\\.(?:from|into|table|join|leftJoin|innerJoin|rightJoin|fullOuterJoin|crossJoin|leftOuterJoin)\\(\\s*)['"\`](${names})(?:\\s+(?:as\\s+)?\\w+)?['"\`]`,
    'g',
  );
  // Lowercase keywords, as the gateway's SQL is written; the lookahead skips `from sms: ...` in
  // prose and a call such as `update devices(...)`, not `insert into sms_status_history (...)`.
  const sql = new RegExp(`\\b(?:from|join|update|into|table|truncate)\\s+(${names})\\b(?!\\(|\\s*[:=])`, 'g');
  for (const match of code.matchAll(builder)) found.add(match[1]!);
  for (const match of code.matchAll(sql)) found.add(match[1]!);
  return found;
}

/** The tables a migration makes: `createTable('name'` or `create table name`. */
export function tablesMade(text: string): string[] {
  const code = stripComments(text);
  return [
    ...[...code.matchAll(/createTable(?:IfNotExists)?\(\s*['"`](\w+)['"`]/g)].map((m) => m[1]!),
    ...[...code.matchAll(/\bcreate\s+(?:unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?(\w+)/gi)].map((m) => m[1]!),
  ];
}

export function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}
