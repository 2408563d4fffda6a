// Messages above a form or a list. Errors are announced to screen readers (role=alert).
import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api.ts';

export function ErrorNotice({ error }: { error: ApiError | string | undefined | null }) {
  if (!error) return null;
  const text = typeof error === 'string' ? error : error.message;
  return (
    <div class="notice notice-error" role="alert">
      {text}
    </div>
  );
}

export function SuccessNotice({ children }: { children: ComponentChildren }) {
  return (
    <div class="notice notice-success" role="status">
      {children}
    </div>
  );
}

/** A secret the gateway shows once (an API key, a webhook secret, a one-time password). */
export function ShownOnce({ label, value, children }: { label: string; value: string; children?: ComponentChildren }) {
  return (
    <div class="notice notice-secret" role="status">
      <p>
        <strong>{label}</strong> — shown this once; copy it now.
      </p>
      <Copyable value={value} label={`Copy ${label.toLowerCase()}`} testId="shown-once" />
      {children}
    </div>
  );
}

/** A value to copy whole (a secret, an id, a URL) beside its copy button, in a paragraph or within a line (`inline`). */
export function Copyable({ value, label, testId, inline = false }: { value: string; label: string; testId: string; inline?: boolean }) {
  const Row = inline ? 'span' : 'p';
  return (
    <Row class="secret-row">
      <code class="secret" data-testid={testId}>
        {value}
      </code>
      <CopyButton value={value} label={label} />
    </Row>
  );
}

export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const copy = async (event: Event) => {
    const button = event.currentTarget as HTMLButtonElement;
    try {
      await navigator.clipboard.writeText(value);
      button.textContent = 'Copied';
    } catch {
      // Without clipboard access (plain HTTP on another host), select the text for Ctrl+C.
      const code = button.parentElement?.querySelector('code');
      if (code) window.getSelection()?.selectAllChildren(code);
      button.textContent = 'Selected: press Ctrl+C';
    }
    setTimeout(() => (button.textContent = label), 2000);
  };
  return (
    <button type="button" class="button button-small" onClick={copy} aria-label={label}>
      {label}
    </button>
  );
}
