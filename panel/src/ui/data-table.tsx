// A list of the API as a table, paged or whole: "Loading…" and errors, a sentence when there is nothing, a
// header row, a row per item and the pager. Which column is which is the page's to say; the
// first one names the row, and on a phone it stays in view while the others scroll (styles.css).
import type { ComponentChildren } from 'preact';
import type { Page as ApiPage } from '../api.ts';
import { Empty, Loading } from './page.tsx';
import { Pager } from './pager.tsx';
import { Table, type Column } from './table.tsx';
import type { PagedList } from './use-paged-list.ts';
import type { Loaded } from './use-load.ts';

export type { Column };

/** A list read whole, in one request without pages (an account's credentials). */
export type WholeList<Row> = Loaded<{ data: Row[] }>;

interface DataTableProps<Row> {
  /** A paged list gets the pager under its table; a whole list has none. */
  list: PagedList<Row> | WholeList<Row>;
  /** `false` leaves a column out (one only owners see). */
  columns: (Column<Row> | false)[];
  /** What the page says when the list has no row. */
  empty: ComponentChildren;
  /** Read by screen readers only, where the page's heading does not already say what the table is. */
  caption?: string;
  class?: string;
  /** What tells rows apart, where it is not their id (a Twilio credential's AccountSid). */
  rowKey?: (row: Row) => string;
  /** Data attributes of a row, for what tests and styles pick out (data-disabled...). */
  rowAttributes?: (row: Row) => Record<string, string>;
  /** Shown under the table instead of the pager. */
  footer?: (page: ApiPage<Row>) => ComponentChildren;
}

export function DataTable<Row>({ list, columns, empty, caption, class: tableClass, rowKey = (row) => (row as { id: string }).id, rowAttributes, footer }: DataTableProps<Row>) {
  return (
    <Loading data={list.data} error={list.error}>
      {(page) =>
        page.data.length === 0 ? (
          <Empty>{empty}</Empty>
        ) : (
          <>
            <div class="table-wrap">
              <Table rows={page.data} columns={columns} rowKey={rowKey} rowAttributes={rowAttributes} caption={caption} captionClass="visually-hidden" class={tableClass} />
            </div>
            {footer ? footer(page as ApiPage<Row>) : 'cursors' in list && <Pager cursors={list.cursors} next={(page as ApiPage<Row>).next_cursor} />}
          </>
        )
      }
    </Loading>
  );
}
