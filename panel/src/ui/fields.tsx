// Labelled form fields: every input has a visible label, and the API's message for that field
// right under it, tied to the input with aria-describedby.
import type { ComponentChildren, JSX } from 'preact';
import { useId } from 'preact/hooks';

interface FieldProps {
  label: string;
  error?: string | undefined;
  hint?: ComponentChildren;
  children: (props: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }) => ComponentChildren;
}

export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class={`field${error ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      {children({ id, ...(described ? { 'aria-describedby': described } : {}), ...(error ? { 'aria-invalid': true } : {}) })}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

type InputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'onInput' | 'value' | 'label'> & {
  label: string;
  value: string;
  onValue: (value: string) => void;
  error?: string | undefined;
  hint?: ComponentChildren;
};

export function TextField({ label, value, onValue, error, hint, ...input }: InputProps) {
  return (
    <Field label={label} error={error} hint={hint}>
      {(aria) => <input {...input} {...aria} value={value} onInput={(event) => onValue(event.currentTarget.value)} />}
    </Field>
  );
}

/** A whole number typed as text: the API judges it, so "abc" gets its message beside the field. */
export function NumberField(props: Omit<InputProps, 'type' | 'inputMode'>) {
  return <TextField {...props} type="number" inputMode="numeric" />;
}

/** A CSV file to read; a new `resetKey` empties the input, so the same file chosen again is read again. */
export function CsvFileField({ name, hint, disabled, resetKey, onFile }: { name: string; hint: string; disabled: boolean; resetKey: number; onFile: (file: File | undefined) => void }) {
  return (
    <Field label="CSV file" hint={hint}>
      {(aria) => <input {...aria} key={resetKey} type="file" name={name} accept=".csv,text/csv" disabled={disabled} onChange={(event) => onFile(event.currentTarget.files?.[0])} />}
    </Field>
  );
}

export function SelectField({
  label,
  value,
  onValue,
  options,
  error,
  hint,
  name,
  disabled,
}: {
  label: string;
  value: string;
  onValue: (value: string) => void;
  options: { value: string; label: string }[];
  error?: string | undefined;
  hint?: ComponentChildren;
  name?: string;
  disabled?: boolean;
}) {
  return (
    <Field label={label} error={error} hint={hint}>
      {(aria) => (
        <select {...aria} name={name} value={value} disabled={disabled} onChange={(event) => onValue(event.currentTarget.value)}>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function CheckboxField({ label, checked, onChecked, hint, name }: { label: string; checked: boolean; onChecked: (checked: boolean) => void; hint?: string; name?: string }) {
  const id = useId();
  return (
    <div class="field field-checkbox">
      <input id={id} name={name} type="checkbox" checked={checked} onChange={(event) => onChecked(event.currentTarget.checked)} aria-describedby={hint ? `${id}-hint` : undefined} />
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

/**
 * A checkbox that, ticked, shows the fields it switches on in a row under it (quiet hours and
 * their window). `error` is the API's message about the whole group.
 */
export function ToggledFields({ error, children, ...checkbox }: Parameters<typeof CheckboxField>[0] & { error?: string | undefined; children: ComponentChildren }) {
  return (
    <>
      <CheckboxField {...checkbox} />
      {error && <p class="field-error">{error}</p>}
      {checkbox.checked && <div class="form-row">{children}</div>}
    </>
  );
}
