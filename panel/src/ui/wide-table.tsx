// A table that may be wider than a phone's screen (a row of figures and times): it scrolls
// sideways inside its own box, so the page itself never does. Focusable, so a keyboard can
// scroll it too when it holds nothing else to focus.
import type { ComponentChildren } from 'preact';

export function WideTable({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}
