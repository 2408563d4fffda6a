// Cursor paging: "Newer" goes back through the cursors seen, "Older" follows next_cursor.
import { useState } from 'preact/hooks';

export interface Cursors {
  cursor: string | undefined;
  older(next: string): void;
  newer(): void;
  reset(): void;
  page: number;
}

/** The cursors walked through one list; `listKey` names the list (its path and filters). */
export function useCursors(listKey: string): Cursors {
  const [position, setPosition] = useState<{ listKey: string; stack: string[] }>({ listKey, stack: [] });
  // A changed filter is a new list: it starts again from its first page, in the same render.
  const stack = position.listKey === listKey ? position.stack : [];
  return {
    cursor: stack[stack.length - 1],
    older: (next) => setPosition({ listKey, stack: [...stack, next] }),
    newer: () => setPosition({ listKey, stack: stack.slice(0, -1) }),
    reset: () => setPosition({ listKey, stack: [] }),
    page: stack.length + 1,
  };
}

export function Pager({ cursors, next }: { cursors: Cursors; next: string | null | undefined }) {
  if (cursors.page === 1 && !next) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="button" disabled={cursors.page === 1} onClick={cursors.newer}>
        ← Newer
      </button>
      <span>Page {cursors.page}</span>
      <button type="button" class="button" disabled={!next} onClick={() => next && cursors.older(next)}>
        Older →
      </button>
    </nav>
  );
}
