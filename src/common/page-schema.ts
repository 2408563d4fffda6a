// Paging as the Extended API shows it: the query parameters and the shape of a page, declared
// (TypeBox only) below the modules whose schemas use them. The cursor and its helpers belong to
// storage (src/storage/paging.ts); routes take both from src/http/pagination.ts.
import { Type } from '@sinclair/typebox';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

export const PageQuery = {
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: 'rows per page, 1-100' }),
  cursor: Type.Optional(
    Type.String({
      maxLength: 200,
      description: 'next_cursor of the previous page; left out for the first page. A blank cursor is refused (400): a null next_cursor means there is no next page',
    }),
  ),
};

export const PageOf = <T extends ReturnType<typeof Type.Object>>(item: T) =>
  Type.Object({
    data: Type.Array(item),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as cursor for the next page; null on the last page' }),
  });
