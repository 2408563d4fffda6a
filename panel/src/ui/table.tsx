// A table of rows the page already holds: a header row, then a row per item, each column saying
// its header and its cell. DataTable shows the API's lists with it; a dry run's preview shows the
// verdict on each row of a file with it.
import type { ComponentChildren } from 'preact';

export interface Column<Row> {
  header: ComponentChildren;
  cell: (row: Row) => ComponentChildren;
  /** Classes of the column's cells (not its header): sms-nowrap, url-cell... */
  class?: string;
  /** Figures, right-aligned in their header and cells alike. */
  numeric?: boolean;
  /** The cell that names the row (a user's email, an account's name): a row header. */
  rowHeader?: boolean;
}

export interface TableProps<Row> {
  rows: Row[];
  /** `false` leaves a column out (one only owners see). */
  columns: (Column<Row> | false)[];
  /** What tells rows apart. */
  rowKey: (row: Row) => string | number;
  /** Data attributes (and classes) of a row, for what tests and styles pick out (data-disabled...). */
  rowAttributes?: (row: Row) => Record<string, string | undefined>;
  caption?: ComponentChildren;
  /** `visually-hidden`: a caption read by screen readers only. */
  captionClass?: string;
  class?: string;
}

export function Table<Row>({ rows, columns, rowKey, rowAttributes, caption, captionClass, class: tableClass }: TableProps<Row>) {
  const shown = columns.filter((column): column is Column<Row> => column !== false);
  return (
    <table class={tableClass}>
      {caption && <caption class={captionClass}>{caption}</caption>}
      <thead>
        <tr>
          {shown.map((column, index) => (
            <th key={index} scope="col" class={column.numeric ? 'num' : undefined}>
              {column.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} {...rowAttributes?.(row)}>
            {shown.map((column, index) => (
              <Cell key={index} column={column} row={row} />
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Cell<Row>({ column, row }: { column: Column<Row>; row: Row }) {
  const classes = [column.rowHeader ? 'cell-plain' : '', column.numeric ? 'num' : '', column.class ?? ''].filter(Boolean).join(' ') || undefined;
  // A table stacked on a phone (.stack-on-phone, styles.css) shows each cell under its header's words.
  const label = typeof column.header === 'string' ? column.header : undefined;
  if (column.rowHeader) {
    return (
      <th scope="row" class={classes} data-label={label}>
        {column.cell(row)}
      </th>
    );
  }
  return (
    <td class={classes} data-label={label}>
      {column.cell(row)}
    </td>
  );
}
