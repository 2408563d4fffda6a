// Live events can come in bursts (a bulk send reports hundreds of statuses a second): a page
// reloads at most once per interval, with one trailing run so the last event is never missed.
import { useEffect, useRef } from 'preact/hooks';

export function useThrottled(run: () => void, intervalMs: number): () => void {
  const latest = useRef(run);
  latest.current = run;
  const state = useRef({ last: 0, timer: undefined as ReturnType<typeof setTimeout> | undefined });
  useEffect(() => () => clearTimeout(state.current.timer), []);
  const trigger = useRef(() => {
    const current = state.current;
    if (current.timer) return;
    const wait = Math.max(0, current.last + intervalMs - Date.now());
    current.timer = setTimeout(() => {
      current.timer = undefined;
      current.last = Date.now();
      latest.current();
    }, wait);
  });
  return trigger.current;
}
