// Loads data for a view and reloads it on demand: the one pattern every page uses for reads.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload(): void;
}

/** Runs `load` now and whenever a value in `deps` changes; keeps the last data while reloading. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const latest = useRef(0);
  const run = useCallback(() => {
    const ticket = ++latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => ticket === latest.current && setState({ data, loading: false }),
      (error: unknown) =>
        ticket === latest.current &&
        setState((previous) => ({ ...previous, loading: false, error: error instanceof ApiError ? error : new ApiError(0, 'network', String(error)) })),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(run, [run]);
  return { data: state.data, error: state.error, loading: state.loading, reload: run };
}
