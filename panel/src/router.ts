// Hash routes (#/sms/42): the gateway serves one page at / and never has to tell a panel path
// from an API path, and a reload or a shared link lands on the same view.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** The path after '#', without its query: "/sms/42". */
  path: string;
  query: URLSearchParams;
}

function current(): Route {
  const hash = window.location.hash.replace(/^#/, '') || '/';
  const [path = '/', query = ''] = hash.split('?', 2);
  return { path, query: new URLSearchParams(query) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

export function navigate(path: string, query?: Record<string, string | undefined>): void {
  window.location.hash = href(path, query).slice(1);
}

/** The href of a panel path, for links. */
export function href(path: string, query?: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value) params.set(key, value);
  const search = params.toString();
  return `#${path}${search ? `?${search}` : ''}`;
}

/** Matches "/sms/:id" against a path; the named parts, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const regex = new RegExp(`^${pattern.replace(/:([a-z_]+)/g, (_, name: string) => (names.push(name), '([^/]+)'))}$`);
  const found = regex.exec(path);
  if (!found) return null;
  return Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(found[index + 1]!)]));
}
