// Creating a webhook: its URL and the events it receives. The gateway checks the URL (scheme,
// private destinations); its answer is shown beside the field.
import { useState } from 'preact/hooks';
import { post } from '../../api.ts';
import { TextField } from '../../ui/fields.tsx';
import { ErrorNotice } from '../../ui/notice.tsx';
import { formErrors } from '../../ui/form-errors.ts';
import { ChoiceBoxes } from './choice-boxes.tsx';
import { useRequestChoices } from './request-choices.ts';
import type { WebhookWithSecret } from '../../api/types.ts';
import { useAction } from './use-action.ts';

export function WebhookForm({ onCreated }: { onCreated: (created: WebhookWithSecret) => void }) {
  const eventTypes = useRequestChoices('post', '/webhooks', 'events');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [description, setDescription] = useState('');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await action.run(() => post<WebhookWithSecret>('/webhooks', { url, events, ...(description ? { description } : {}) }));
    if (!created) return;
    setUrl('');
    setEvents([]);
    setDescription('');
    onCreated(created);
  };
  const error = formErrors(action.error, { url: 'URL', description: 'Description', events: 'Events' });
  return (
    <form class="card admin-form" onSubmit={submit} noValidate aria-labelledby="new-webhook">
      <h2 id="new-webhook">New webhook</h2>
      <ErrorNotice error={error.notice} />
      <TextField label="URL" type="url" name="url" inputMode="url" placeholder="https://example.com/hooks/sms" value={url} onValue={setUrl} error={error.field('url')} />
      <TextField label="Description" name="description" value={description} onValue={setDescription} hint="Optional: what receives these events." error={error.field('description')} />
      <ErrorNotice error={eventTypes.error} />
      <ChoiceBoxes legend="Events" choices={eventTypes.data ?? []} chosen={events} onChosen={setEvents} error={error.field('events')} />
      <button type="submit" class="button button-primary" disabled={action.busy}>
        Create webhook
      </button>
    </form>
  );
}
