// Creating a webhook: its URL and the events it receives. The gateway checks the URL (scheme,
// private destinations); its answer is shown beside the field.
import { post } from '../../api.ts';
import { TextField } from '../../ui/fields.tsx';
import { ErrorNotice } from '../../ui/notice.tsx';
import { ChoiceBoxes } from './choice-boxes.tsx';
import { useRequestChoices } from './request-choices.ts';
import type { WebhookWithSecret } from '../../api/types.ts';
import { CreateForm, useCreateForm } from './create-form.tsx';

export function WebhookForm({ onCreated }: { onCreated: (created: WebhookWithSecret) => void }) {
  const eventTypes = useRequestChoices('post', '/webhooks', 'events');
  const form = useCreateForm(
    { url: '', events: [] as string[], description: '' },
    ({ url, events, description }) => post<WebhookWithSecret>('/webhooks', { url, events, ...(description ? { description } : {}) }),
    onCreated,
    { url: 'URL', description: 'Description', events: 'Events' },
  );
  const { values, set, error } = form;
  return (
    <CreateForm id="new-webhook" title="New webhook" action="Create webhook" form={form}>
      <TextField label="URL" type="url" name="url" inputMode="url" placeholder="https://example.com/hooks/sms" value={values.url} onValue={set('url')} error={error.field('url')} />
      <TextField label="Description" name="description" value={values.description} onValue={set('description')} hint="Optional: what receives these events." error={error.field('description')} />
      <ErrorNotice error={eventTypes.error} />
      <ChoiceBoxes legend="Events" choices={eventTypes.data ?? []} chosen={values.events} onChosen={set('events')} error={error.field('events')} />
    </CreateForm>
  );
}
