// Live events can arrive many a second (a bulk send moving through its statuses); a list reloads
// at most once per interval however many arrive, and once more after the last one.
import { useCallback, useEffect, useRef } from 'preact/hooks';

export function useThrottled(action: () => void, intervalMs: number): () => void {
  const latest = useRef(action);
  latest.current = action;
  const lastRun = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);
  return useCallback(() => {
    if (timer.current !== undefined) return;
    const wait = Math.max(0, lastRun.current + intervalMs - Date.now());
    timer.current = setTimeout(() => {
      timer.current = undefined;
      lastRun.current = Date.now();
      latest.current();
    }, wait);
  }, [intervalMs]);
}
