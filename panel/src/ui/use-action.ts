// A change made from a button or form: one at a time, its error kept for the page to show, and
// the list reloaded after it whether it worked or not (another tab may have changed things too).
import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';

export interface Action {
  busy: boolean;
  error: ApiError | undefined;
  /** Runs `change`; answers its result, or undefined when it failed (the error is kept). */
  run<T>(change: () => Promise<T>): Promise<T | undefined>;
  clear(): void;
}

export function useAction(afterwards?: () => void): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  return {
    busy,
    error,
    clear: () => setError(undefined),
    async run(change) {
      setBusy(true);
      setError(undefined);
      try {
        return await change();
      } catch (caught) {
        setError(caught instanceof ApiError ? caught : new ApiError(0, 'network', 'The gateway could not be reached.'));
        return undefined;
      } finally {
        setBusy(false);
        afterwards?.();
      }
    },
  };
}
