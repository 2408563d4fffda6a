// How commands talk to people and scripts: text by default, one JSON document with --json.
// Errors go to stderr and set a non-zero exit code.
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface Output {
  json: boolean;
  /** Prints `data` as JSON with --json, otherwise the text `render` returns. */
  result(data: unknown, render: () => string): void;
  /** What `result` would print, for a command that shows it somewhere other than stdout. */
  format(data: unknown, render: () => string): string;
  /** Prints rows as JSON with --json, otherwise as a table of the columns `columns` gives each row. */
  rows<T>(data: T[], columns: (row: T) => Record<string, string>): void;
}

export function createOutput(json: boolean): Output {
  const format = (data: unknown, render: () => string) => (json ? `${JSON.stringify(data, null, 2)}\n` : `${render()}\n`);
  return {
    json,
    format,
    result(data, render) {
      process.stdout.write(format(data, render));
    },
    rows(data, columns) {
      process.stdout.write(format(data, () => table(data.map(columns))));
    },
  };
}

export function table(rows: Record<string, string>[]): string {
  if (rows.length === 0) return '(none)';
  const columns = Object.keys(rows[0]!);
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns), ...rows.map((row) => line(columns.map((column) => row[column] ?? '')))].join('\n');
}
