// Paging as the Extended API shows it, for routes: the query parameters and the shape of a page
// (declared in common, where the modules' schemas take them from) and the cursor and its helpers
// (storage's, src/storage/paging.ts).
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, PageOf, PageQuery } from '../common/page-schema.ts';
export { decodeCursor, encodeCursor, page, pageBy, type Cursor } from '../storage/paging.ts';
