// Cursor paging: "Newer" goes back through the cursors seen, "Older" follows next_cursor.
import { useState } from 'preact/hooks';

export interface Cursors {
  cursor: string | undefined;
  older(next: string): void;
  newer(): void;
  reset(): void;
  page: number;
}

export function useCursors(): Cursors {
  const [stack, setStack] = useState<string[]>([]);
  return {
    cursor: stack[stack.length - 1],
    older: (next) => setStack((previous) => [...previous, next]),
    newer: () => setStack((previous) => previous.slice(0, -1)),
    reset: () => setStack([]),
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
