// A form that creates one thing (an account, a key, a user, a webhook, a credential): its fields'
// values, the one request, each field's error beside it, and the fields emptied once it worked so
// that the next one starts clean. A secret the gateway answers once (a key, a password) is shown
// just above the form that asked for it, where the eye already is, until the next one is made.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorNotice, ShownOnce } from '../../ui/notice.tsx';
import { formErrors, type FormErrors } from '../../ui/form-errors.ts';
import { useAction } from '../../ui/use-action.ts';

export interface CreateFormState<Values, Created = unknown> {
  values: Values;
  /** The last thing this form created, while the page stays open. */
  created: Created | undefined;
  /** The setter of one field, for its input's onValue. */
  set<K extends keyof Values>(field: K): (value: Values[K]) => void;
  submit(event: Event): Promise<void>;
  busy: boolean;
  error: FormErrors;
}

/**
 * `create` sends the request; `labels` maps the API's field names to the form's labels, so that
 * the gateway's answer shows beside the field it is about.
 */
export function useCreateForm<Values, Created>(
  initial: Values,
  create: (values: Values) => Promise<Created>,
  onCreated: (created: Created) => void,
  labels: Record<string, string>,
): CreateFormState<Values, Created> {
  const [values, setValues] = useState(initial);
  const [created, setCreated] = useState<Created>();
  const action = useAction();
  return {
    values,
    created,
    set: (field) => (value) => setValues((current) => ({ ...current, [field]: value })),
    async submit(event) {
      event.preventDefault();
      const created = await action.run(() => create(values));
      if (created === undefined) return;
      setValues(initial);
      setCreated(created);
      onCreated(created);
    },
    busy: action.busy,
    error: formErrors(action.error, labels),
  };
}

interface CreateFormProps<Values, Created> {
  id: string;
  title: string;
  /** The submit button's words. */
  action: string;
  form: CreateFormState<Values, Created>;
  /** The secret in what was created (a key, a password), shown once above the form under `secretLabel`. */
  secret?: (created: Created) => string;
  secretLabel?: string;
  /** What to do with the secret, said under it. */
  secretNote?: (created: Created) => ComponentChildren;
  children: ComponentChildren;
}

export function CreateForm<Values, Created>({ id, title, action, form, secret, secretLabel = 'Secret', secretNote, children }: CreateFormProps<Values, Created>) {
  return (
    <>
      {secret && form.created !== undefined && (
        <ShownOnce label={secretLabel} value={secret(form.created)}>
          {secretNote?.(form.created)}
        </ShownOnce>
      )}
      <form class="card admin-form" onSubmit={(event) => void form.submit(event)} noValidate aria-labelledby={id}>
        <h2 id={id}>{title}</h2>
        <ErrorNotice error={form.error.notice} />
        {children}
        <button type="submit" class="button button-primary" disabled={form.busy}>
          {action}
        </button>
      </form>
    </>
  );
}
