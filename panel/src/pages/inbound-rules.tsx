// The account's inbound rules, tried in order on every SMS its phones receive: what each matches,
// what it does, how often it matched (and how often its regular expression ran out of time); owners
// add, reorder, switch off and delete them, and anyone tries a sample SMS (docs/inbound-rules.md).
import { useState } from 'preact/hooks';
import { del, get, patch, post, request } from '../api.ts';
import type { InboundRule, RuleDryRun } from '../api/types.ts';
import { useSession } from '../session.tsx';
import { SelectField, TextField } from '../ui/fields.tsx';
import { ErrorNotice } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { DataTable } from '../ui/data-table.tsx';
import { useLoad } from '../ui/use-load.ts';
import { formErrors } from '../ui/form-errors.ts';
import { CreateForm, useCreateForm } from './admin/create-form.tsx';
import { useAction } from '../ui/use-action.ts';

const ACTIONS: { value: InboundRule['action']; label: string }[] = [
  { value: 'auto_reply', label: 'Auto-reply' },
  { value: 'forward_sms', label: 'Forward by SMS' },
  { value: 'forward_email', label: 'Forward by email' },
  { value: 'tag', label: 'Tag' },
];
const actionLabel = (action: InboundRule['action']) => ACTIONS.find((choice) => choice.value === action)!.label;

function conditions(rule: InboundRule): string {
  const parts = [
    rule.match_keyword && `keyword "${rule.match_keyword}"`,
    rule.match_regex && `pattern /${rule.match_regex}/`,
    rule.match_sender && `from ${rule.match_sender}`,
    rule.match_device_id && 'one phone',
    rule.match_sim_slot !== null && `SIM ${rule.match_sim_slot}`,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : 'every SMS';
}

function what(rule: InboundRule): string {
  if (rule.action === 'auto_reply') return `reply "${rule.reply_text}"`;
  if (rule.action === 'forward_sms') return `to ${rule.forward_to}`;
  if (rule.action === 'forward_email') return `to ${rule.email_to}`;
  return rule.tags.join(', ');
}

export function InboundRulesPage(_props: Record<string, string>) {
  const session = useSession();
  const list = useLoad(() => get<{ data: InboundRule[] }>('/inbound-rules'), []);
  const change = useAction(list.reload);
  const rules = list.data?.data ?? [];
  const move = (rule: InboundRule, by: number) => {
    const ids = rules.map((each) => each.id);
    const from = ids.indexOf(rule.id);
    ids.splice(from, 1);
    ids.splice(from + by, 0, rule.id);
    void change.run(() => request('PUT', '/inbound-rules/order', { body: { ids } }));
  };
  const remove = (rule: InboundRule) => {
    if (!window.confirm(`Delete the rule ${rule.name || conditions(rule)}?`)) return;
    void change.run(() => del(`/inbound-rules/${rule.id}`));
  };
  const name = (rule: InboundRule) => rule.name || `rule ${rule.position + 1}`;
  return (
    <Page title="Inbound rules">
      <p class="muted">Tried from the top on every SMS your phones receive. Every condition a rule names must hold.</p>
      <ErrorNotice error={change.error} />
      <DataTable
        list={list}
        caption="Rules, in the order they are tried"
        empty="No rules yet."
        rowAttributes={(rule) => ({ 'data-enabled': String(rule.enabled) })}
        columns={[
          { header: 'Rule', rowHeader: true, cell: (rule) => name(rule) },
          { header: 'Matches', cell: conditions },
          { header: 'Action', cell: (rule) => `${actionLabel(rule.action)}: ${what(rule)}${rule.stop_after ? ' (then stop)' : ''}` },
          { header: 'Hits', numeric: true, cell: (rule) => rule.hits },
          { header: 'Time-outs', numeric: true, cell: (rule) => rule.regex_timeouts },
          session.canChange && {
            header: 'Change',
            class: 'admin-nowrap',
            cell: (rule) => (
              <>
                <button type="button" class="button button-small" disabled={change.busy || rule.position === 0} aria-label={`Move ${name(rule)} up`} onClick={() => move(rule, -1)}>
                  Up
                </button>{' '}
                <button type="button" class="button button-small" disabled={change.busy || rule.position === rules.length - 1} aria-label={`Move ${name(rule)} down`} onClick={() => move(rule, 1)}>
                  Down
                </button>{' '}
                <button type="button" class="button button-small" disabled={change.busy} aria-label={`${rule.enabled ? 'Disable' : 'Enable'} ${name(rule)}`} onClick={() => void change.run(() => patch(`/inbound-rules/${rule.id}`, { enabled: !rule.enabled }))}>
                  {rule.enabled ? 'Disable' : 'Enable'}
                </button>{' '}
                <button type="button" class="button button-small button-danger" disabled={change.busy} aria-label={`Delete ${name(rule)}`} onClick={() => remove(rule)}>
                  Delete
                </button>
              </>
            ),
          },
        ]}
      />
      {session.canChange && <RuleForm onCreated={list.reload} />}
      <DryRunForm />
    </Page>
  );
}

const RULE_LABELS = {
  name: 'Name',
  action: 'Action',
  match_keyword: 'Keyword',
  match_regex: 'Pattern',
  match_sender: 'From number',
  reply_text: 'Reply text',
  forward_to: 'Forward to number',
  email_to: 'Email to',
  tags: 'Tags',
};

function RuleForm({ onCreated }: { onCreated: () => void }) {
  const form = useCreateForm(
    { name: '', action: 'auto_reply' as InboundRule['action'], match_keyword: '', match_regex: '', match_sender: '', reply_text: '', forward_to: '', email_to: '', tags: '' },
    (values) =>
      post<InboundRule>('/inbound-rules', {
        name: values.name,
        action: values.action,
        ...(values.match_keyword ? { match_keyword: values.match_keyword } : {}),
        ...(values.match_regex ? { match_regex: values.match_regex } : {}),
        ...(values.match_sender ? { match_sender: values.match_sender } : {}),
        ...(values.action === 'auto_reply' ? { reply_text: values.reply_text || null } : {}),
        ...(values.action === 'forward_sms' ? { forward_to: values.forward_to || null } : {}),
        ...(values.action === 'forward_email' ? { email_to: values.email_to || null } : {}),
        ...(values.action === 'tag' ? { tags: values.tags.split(',').map((tag) => tag.trim()).filter(Boolean) } : {}),
      }),
    onCreated,
    RULE_LABELS,
  );
  const { values, set, error } = form;
  return (
    <CreateForm id="new-inbound-rule" title="New rule" action="Add rule" form={form}>
      <div class="form-row">
        <TextField label={RULE_LABELS.name} name="name" autoComplete="off" value={values.name} onValue={set('name')} error={error.field('name')} />
        <SelectField label={RULE_LABELS.action} name="action" value={values.action} onValue={(value) => set('action')(value as InboundRule['action'])} options={ACTIONS} error={error.field('action')} />
      </div>
      <div class="form-row">
        <TextField label={RULE_LABELS.match_keyword} name="match_keyword" autoComplete="off" value={values.match_keyword} onValue={set('match_keyword')} hint="The SMS is this word, or starts with it." error={error.field('match_keyword')} />
        <TextField label={RULE_LABELS.match_regex} name="match_regex" autoComplete="off" value={values.match_regex} onValue={set('match_regex')} hint="A regular expression, case-insensitive." error={error.field('match_regex')} />
        <TextField label={RULE_LABELS.match_sender} name="match_sender" autoComplete="off" value={values.match_sender} onValue={set('match_sender')} error={error.field('match_sender')} />
      </div>
      {values.action === 'auto_reply' && <TextField label={RULE_LABELS.reply_text} name="reply_text" value={values.reply_text} onValue={set('reply_text')} hint="Sent back through the phone that received the SMS, at most once per sender in the window." error={error.field('reply_text')} />}
      {values.action === 'forward_sms' && <TextField label={RULE_LABELS.forward_to} name="forward_to" value={values.forward_to} onValue={set('forward_to')} error={error.field('forward_to')} />}
      {values.action === 'forward_email' && <TextField label={RULE_LABELS.email_to} name="email_to" type="email" value={values.email_to} onValue={set('email_to')} error={error.field('email_to')} />}
      {values.action === 'tag' && <TextField label={RULE_LABELS.tags} name="tags" value={values.tags} onValue={set('tags')} hint="Comma separated." error={error.field('tags')} />}
    </CreateForm>
  );
}

function DryRunForm() {
  const [sample, setSample] = useState({ phone: '', message: '' });
  const [result, setResult] = useState<RuleDryRun>();
  const run = useAction();
  const errors = formErrors(run.error, { phone: 'Sample sender', message: 'Sample text' });
  const submit = async (event: Event) => {
    event.preventDefault();
    setResult(await run.run(() => post<RuleDryRun>('/inbound-rules/dry-run', sample)));
  };
  return (
    <form class="card admin-form" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="rule-dry-run">
      <h2 id="rule-dry-run">Try a sample SMS</h2>
      <ErrorNotice error={errors.notice} />
      <div class="form-row">
        <TextField label="Sample sender" name="sample_phone" value={sample.phone} onValue={(phone) => setSample({ ...sample, phone })} error={errors.field('phone')} />
        <TextField label="Sample text" name="sample_message" value={sample.message} onValue={(message) => setSample({ ...sample, message })} error={errors.field('message')} />
      </div>
      <button type="submit" class="button" disabled={run.busy}>
        Try the rules
      </button>
      {result && (
        <ul role="status" aria-label="Dry run result">
          {result.data.length === 0 && <li>No rules.</li>}
          {result.data.map((verdict) => (
            <li key={verdict.rule_id}>
              {verdict.name || 'unnamed rule'}: {verdict.timed_out ? 'timed out (no match)' : verdict.matched ? 'matches' : 'no match'}
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}
