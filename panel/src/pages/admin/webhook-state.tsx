// Whether a webhook delivers: a word first (never colour alone), with why when it does not.
import type { WebhookView } from '../../api/types.ts';

export function WebhookState({ webhook }: { webhook: WebhookView }) {
  if (!webhook.enabled) {
    return (
      <span>
        <span class="badge badge-bad">disabled</span>
        {webhook.disabled_reason && <span class="muted state-reason"> {webhook.disabled_reason}</span>}
      </span>
    );
  }
  if (webhook.failing_since) {
    return (
      <span>
        <span class="badge badge-bad">failing</span>
        <span class="muted state-reason">
          {' '}
          {webhook.consecutive_failures} failed {webhook.consecutive_failures === 1 ? 'attempt' : 'attempts'}
        </span>
      </span>
    );
  }
  return <span class="badge badge-good">enabled</span>;
}
