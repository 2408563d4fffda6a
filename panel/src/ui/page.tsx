// The frame of every page: its heading (also the document title, so a screen reader and the
// browser tab say where the user is) and the usual loading / error states of its data.
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import type { ApiError } from '../api.ts';
import { href } from '../router.ts';
import { ErrorNotice } from './notice.tsx';

export function Page({ title, actions, children }: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · SMS gateway`;
  }, [title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-header">
        <h1 id="page-title">{title}</h1>
        {actions && <div class="page-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

/** Shows the error, or "Loading…" until the first data arrives, then the content. */
export function Loading<T>({ data, error, children }: { data: T | undefined; error?: ApiError | undefined; children: (data: T) => ComponentChildren }) {
  if (error && data === undefined) return <ErrorNotice error={error} />;
  if (data === undefined) return <p class="muted" aria-live="polite">Loading…</p>;
  return (
    <>
      {error && <ErrorNotice error={error} />}
      {children(data)}
    </>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** A link to another page of the panel that looks like the main button (Register a device, Send SMS). */
export function PrimaryLink({ to, children }: { to: string; children: ComponentChildren }) {
  return (
    <a class="button button-primary" href={href(to)}>
      {children}
    </a>
  );
}
