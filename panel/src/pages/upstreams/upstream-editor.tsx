// The card that adds an upstream (POST /upstreams) or, given one, changes it (PATCH with only
// what changed). Emptied once an upstream is added, so the next one starts clean; an edit brings
// itself into view and closes once saved.
import { useEffect, useRef, useState } from 'preact/hooks';
import { patch, post } from '../../api.ts';
import { formErrors } from '../../ui/form-errors.ts';
import { ErrorNotice } from '../../ui/notice.tsx';
import { useAction } from '../../ui/use-action.ts';
import type { Upstream } from './types.ts';
import { UPSTREAM_LABELS, UpstreamFields, withPrefixLines } from './upstream-form.tsx';
import { changeBody, createBody, emptyUpstream, upstreamValues, type UpstreamValues } from './upstream-values.ts';

export function UpstreamEditor({ upstream, onSaved, onCancel }: { upstream?: Upstream; onSaved: (saved: Upstream) => void; onCancel?: () => void }) {
  const [initial] = useState(() => (upstream ? upstreamValues(upstream) : emptyUpstream()));
  const [values, setValues] = useState(initial);
  const action = useAction();
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (!upstream) return;
    formRef.current?.scrollIntoView({ block: 'start' });
    formRef.current?.querySelector('input')?.focus();
  }, [upstream?.id]);
  const form = {
    values,
    set:
      <K extends keyof UpstreamValues>(field: K) =>
      (value: UpstreamValues[K]) =>
        setValues((current) => ({ ...current, [field]: value })),
    error: formErrors(withPrefixLines(action.error), UPSTREAM_LABELS),
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    const saved = await action.run(() => {
      if (!upstream) return post<Upstream>('/upstreams', createBody(values));
      const body = changeBody(initial, values);
      return Object.keys(body).length === 0 ? Promise.resolve(upstream) : patch<Upstream>(`/upstreams/${upstream.id}`, body);
    });
    if (!saved) return;
    if (!upstream) setValues(emptyUpstream(values.kind));
    onSaved(saved);
  };
  const headingId = upstream ? `edit-upstream-${upstream.id}` : 'new-upstream';
  return (
    <form ref={formRef} class="card admin-form" onSubmit={(event) => void submit(event)} noValidate aria-labelledby={headingId}>
      <h2 id={headingId}>{upstream ? `Change ${upstream.name}` : 'New upstream'}</h2>
      <ErrorNotice error={form.error.notice} />
      <UpstreamFields form={form} editing={upstream !== undefined} />
      <div class="admin-actions">
        <button type="submit" class="button button-primary" disabled={action.busy}>
          {upstream ? 'Save upstream' : 'Add upstream'}
        </button>
        {onCancel && (
          <button type="button" class="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
