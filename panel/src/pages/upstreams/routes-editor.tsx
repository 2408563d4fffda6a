// The account's routes: the ordered rules an SMS goes through (docs/routes.md), each naming the
// phones or one of the upstreams by name, the destinations and priorities it applies to, and for
// the phones how long they have. Owners add, remove and reorder rules and save them all at once
// (PUT /routes); the gateway judges them and its messages show beside the rule's field. Viewers
// read the same rules in a disabled form.
import { useState } from 'preact/hooks';
import { ApiError, get, request } from '../../api.ts';
import { inWords } from '../../ui/form-errors.ts';
import { CheckboxField, SelectField, TextField } from '../../ui/fields.tsx';
import { ChoiceBoxes } from '../admin/choice-boxes.tsx';
import { formatTime } from '../../ui/format.ts';
import { ErrorNotice, SuccessNotice } from '../../ui/notice.tsx';
import { Loading } from '../../ui/page.tsx';
import { useAction } from '../../ui/use-action.ts';
import { useLoad } from '../../ui/use-load.ts';
import { CATEGORIES, moved, newRule, PHONES, ruleBody, ruleValues, type RuleValues } from './route-values.ts';
import type { AsTyped, RoutesChange, RoutesView, Upstream } from './types.ts';

/** As many rules as the gateway keeps for an account. */
const MAX_RULES = 20;

const RULE_LABELS: Record<string, string> = {
  target: 'Target',
  prefixes: 'Prefixes',
  min_priority: 'Minimum priority',
  categories: 'Categories',
  after_seconds: 'Seconds the phones have',
  skip_when_offline: 'Move on at once when no phone is online',
};

/** `routes.2.after_seconds` (or `routes.2.prefixes.0`): rule 2's field; other fields are the whole list's. */
const RULE_FIELD = /(?:^|\.)routes\.(\d+)\.([a-z_]+)/;

function ruleError(error: ApiError | undefined, index: number, field: string): string | undefined {
  const messages = (error?.details ?? [])
    .filter((detail) => {
      const found = RULE_FIELD.exec(detail.field);
      return found && Number(found[1]) === index && found[2] === field;
    })
    .map((detail) => inWords(itemsByNumber(detail.message.replace(/^(?:body\.)?routes\.\d+\./, '')), RULE_LABELS));
  return messages.length > 0 ? [...new Set(messages)].join(' ') : undefined;
}

/** "prefixes.0 is not in the expected form" is about the first prefix typed: "Prefix 1 is ...". */
function itemsByNumber(message: string): string {
  return message.replace(/^prefixes\.(\d+)/, (_, index: string) => `Prefix ${Number(index) + 1}`);
}

/** What the notice above the rules says: the problems no rule's field shows, or where to look. */
function notice(error: ApiError | undefined): string | undefined {
  if (!error) return undefined;
  if (error.details.length === 0) return error.message;
  const unplaced = error.details.filter((detail) => !RULE_FIELD.test(detail.field));
  if (unplaced.length > 0) return unplaced.map((detail) => inWords(detail.message.replace(/^body\./, ''), RULE_LABELS)).join(' ');
  const rules = [...new Set(error.details.map((detail) => Number(RULE_FIELD.exec(detail.field)![1]) + 1))];
  return `Check ${rules.length === 1 ? 'rule' : 'rules'} ${rules.join(', ')} below.`;
}

export function RoutesEditor({ upstreams, canChange }: { upstreams: Upstream[]; canChange: boolean }) {
  const routes = useLoad(() => get<RoutesView>('/routes'), []);
  return (
    <section class="card" aria-labelledby="routes-heading">
      <h2 id="routes-heading" class="card-heading">
        Routes
      </h2>
      <p class="muted">
        Each SMS goes through the rules that apply to it (by its destination's prefix, its priority, its category), from the top: the phones keep it for their seconds (or pass it on at once when none is online), an upstream takes it or passes it on when it is
        disabled, over budget, down or refuses it. After the last rule it fails, unless that rule is the phones'. An SMS no rule applies to, and every SMS while there is no rule, goes to the phones.
      </p>
      <Loading data={routes.data} error={routes.error}>
        {(view) => <RulesForm view={view} upstreams={upstreams} canChange={canChange} />}
      </Loading>
    </section>
  );
}

function RulesForm({ view, upstreams, canChange }: { view: RoutesView; upstreams: Upstream[]; canChange: boolean }) {
  const [rules, setRules] = useState(() => view.routes.map(ruleValues));
  const [updatedAt, setUpdatedAt] = useState(view.updated_at);
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const edit = (next: RuleValues[]) => {
    setSaved(false);
    setRules(next);
  };
  const setField =
    <K extends keyof RuleValues>(index: number, field: K) =>
    (value: RuleValues[K]) =>
      edit(rules.map((rule, at) => (at === index ? { ...rule, [field]: value } : rule)));
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const body: AsTyped<RoutesChange> = { routes: rules.map(ruleBody) };
    const answer = await save.run(() => request<RoutesView>('PUT', '/routes', { body }));
    if (!answer) return;
    setRules(answer.routes.map(ruleValues));
    setUpdatedAt(answer.updated_at);
    setSaved(true);
  };
  const targets = [
    { value: PHONES, label: "The account's phones" },
    ...upstreams.map((upstream) => ({ value: upstream.id, label: `${upstream.name}${upstream.enabled ? '' : ' (disabled)'}` })),
  ];
  const optionsFor = (target: string) => (targets.some((option) => option.value === target) ? targets : [...targets, { value: target, label: `${target} (not an upstream listed here)` }]);
  return (
    <form onSubmit={(event) => void submit(event)} noValidate aria-label="Routes">
      {!canChange && <p class="muted">Viewers see the routes; owners change them.</p>}
      {saved && <SuccessNotice>Routes saved.</SuccessNotice>}
      <ErrorNotice error={notice(save.error)} />
      <fieldset disabled={!canChange || save.busy} class="route-rules">
        <legend>Rules, in order ({updatedAt ? `last changed ${formatTime(updatedAt)}` : 'never set'})</legend>
        {rules.length === 0 && <p class="empty">No rules: every SMS goes to the phones.</p>}
        {rules.map((rule, index) => {
          const number = index + 1;
          const field = (name: 'prefixes' | 'min_priority' | 'after_seconds') => ({
            label: RULE_LABELS[name]!,
            name: `routes.${index}.${name}`,
            autoComplete: 'off',
            value: rule[name],
            onValue: setField(index, name),
            error: ruleError(save.error, index, name),
          });
          return (
            <fieldset key={rule.key} data-rule={number}>
              <legend>Rule {number}</legend>
              <div class="form-row">
                <SelectField label={RULE_LABELS.target!} name={`routes.${index}.target`} value={rule.target} onValue={setField(index, 'target')} options={optionsFor(rule.target)} error={ruleError(save.error, index, 'target')} />
                <TextField {...field('prefixes')} hint="Only destinations starting with one of these, e.g. +44, +33; empty: every one." />
                <TextField {...field('min_priority')} type="number" inputMode="numeric" hint="Only SMS sent with at least this priority; empty: every one." />
              </div>
              <ChoiceBoxes
                legend="Categories (none ticked: every SMS)"
                choices={[...CATEGORIES]}
                chosen={rule.categories}
                onChosen={(chosen) => setField(index, 'categories')(chosen as RuleValues['categories'])}
                error={ruleError(save.error, index, 'categories')}
              />
              {rule.target === PHONES && (
                <div class="form-row">
                  <TextField {...field('after_seconds')} type="number" inputMode="numeric" hint="Before the next rule; empty: no limit." />
                  <CheckboxField label={RULE_LABELS.skip_when_offline!} name={`routes.${index}.skip_when_offline`} checked={rule.skip_when_offline} onChecked={setField(index, 'skip_when_offline')} />
                </div>
              )}
              {ruleError(save.error, index, 'skip_when_offline') && <p class="field-error">{ruleError(save.error, index, 'skip_when_offline')}</p>}
              {canChange && (
                <div class="admin-actions">
                  <button type="button" class="button button-small" disabled={index === 0} aria-label={`Move rule ${number} up`} onClick={() => edit(moved(rules, index, -1))}>
                    Up
                  </button>
                  <button type="button" class="button button-small" disabled={index === rules.length - 1} aria-label={`Move rule ${number} down`} onClick={() => edit(moved(rules, index, 1))}>
                    Down
                  </button>
                  <button type="button" class="button button-small button-danger" aria-label={`Remove rule ${number}`} onClick={() => edit(rules.filter((_, at) => at !== index))}>
                    Remove
                  </button>
                </div>
              )}
            </fieldset>
          );
        })}
      </fieldset>
      {canChange && (
        <div class="admin-actions">
          <button type="button" class="button" disabled={save.busy || rules.length >= MAX_RULES} onClick={() => edit([...rules, newRule()])}>
            Add a rule
          </button>
          <button type="submit" class="button button-primary" disabled={save.busy}>
            Save routes
          </button>
        </div>
      )}
    </form>
  );
}
