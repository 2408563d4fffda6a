// Live events can come in bursts (a bulk send reports hundreds of statuses a second): a page
// reloads at most once per interval, with one trailing run so the last event is never missed.
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
