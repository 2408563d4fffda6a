// The legacy GET /sms: a page of matches and total_records. EXPLAIN (ANALYZE) on
// 1,000,000 rows showed where a broad search spent its time: the page of 100 costs about 1 ms
// (read newest first along sms_account_created, it stops after some 800 rows), while counting
// every match of a word in 1 SMS of 8 rechecks 125,000 rows (220 ms), and counting the list
// without a search reads every row (180 ms). So the list without a search takes the account's
// count as triggers keep it (exact, one indexed read), and a search counts its matches up to a
// cap, as search engines do: up to the cap total_records is exact; past it, it is a lower bound
// and the answer says so. Without a cap every match is counted, at the price above.
import type { Executor } from '../../storage/database.ts';
import { countAllSms, countSmsUpTo, searchSms, type SmsSearch, type SmsWithDevice } from './repository.ts';

export interface SearchTotal {
  /** How many SMS match: all of them when `exact`, else at least this many. */
  count: number;
  exact: boolean;
}

export interface SearchPage {
  rows: SmsWithDevice[];
  total: SearchTotal;
}

export interface PageRequest {
  limit: number;
  /** Rows before the page (not the legacy page number). */
  offset: number;
  /** A search's matches counted at most; more are answered as "at least countCap". Undefined: all are counted. */
  countCap: number | undefined;
}

/** One page of the account's matching SMS, newest first, and how many match (a search's exactly up to the cap). */
export async function searchWithTotal(db: Executor, accountId: string, search: SmsSearch, page: PageRequest): Promise<SearchPage> {
  // One row past the page says whether more matches follow, for the price of one row.
  const fetched = await searchSms(db, accountId, search, page.limit + 1, page.offset);
  const rows = fetched.slice(0, page.limit);
  const seen = page.offset + fetched.length;
  // The last page (or the only one): every match is before it or on it, so no count is needed.
  if ((fetched.length > 0 || page.offset === 0) && fetched.length <= page.limit) return { rows, total: { count: seen, exact: true } };
  if (!searches(search)) return { rows, total: { count: await countAllSms(db, accountId), exact: true } };
  const cap = page.countCap ?? Infinity;
  // A page past the cap already proves more matches than counting would: say that many.
  if (fetched.length > 0 && seen > cap) return { rows, total: { count: seen, exact: false } };
  const counted = await countSmsUpTo(db, accountId, search, page.countCap === undefined ? undefined : page.countCap + 1);
  return { rows, total: counted > cap ? { count: cap, exact: false } : { count: counted, exact: true } };
}

/** Whether the search keeps only some SMS (an empty one lists them all). */
function searches(search: SmsSearch): boolean {
  return search.text !== undefined || (search.statuses?.length ?? 0) > 0 || search.retrying === true;
}
