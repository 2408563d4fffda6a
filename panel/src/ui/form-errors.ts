// The API names fields as its JSON does (new_password, messages.1.phone); a form names them by
// their labels. This turns an API error into what a form shows: each field's problem beside that
// field, in the label's words, and above the form only what no field shows, so nothing is said
// twice. `labels` maps the API's field names to the form's labels.
import { ApiError } from '../api.ts';

export interface FormErrors {
  /** What the notice above the form says, or undefined when there is nothing to say. */
  notice: string | undefined;
  /** The problem with one field, in the form's words, or undefined. */
  field(name: string): string | undefined;
}

export function formErrors(error: ApiError | string | undefined, labels: Record<string, string>): FormErrors {
  if (error === undefined) return { notice: undefined, field: () => undefined };
  if (typeof error === 'string') return { notice: error, field: () => undefined };
  const names = Object.keys(labels);
  const fieldOf = (detailField: string) => names.find((name) => matches(detailField, name));
  const unplaced = error.details.filter((detail) => !fieldOf(detail.field));
  const placed = [...new Set(error.details.map((detail) => fieldOf(detail.field)).filter((name): name is string => name !== undefined))];
  let notice: string;
  if (error.details.length === 0) notice = inWords(error.message, labels);
  else if (unplaced.length > 0) notice = unplaced.map((detail) => inWords(detail.message, labels)).join(' ');
  else notice = `Check ${placed.length === 1 ? 'the field' : 'the fields'} marked below: ${placed.map((name) => labels[name]).join(', ')}.`;
  return {
    notice,
    field: (name) => {
      const messages = error.details.filter((detail) => matches(detail.field, name)).map((detail) => inWords(detail.message, labels));
      return messages.length > 0 ? [...new Set(messages)].join(' ') : undefined;
    },
  };
}

/** `body.phone`, `messages.1.phone` and `phone` are all the field "phone". */
function matches(detailField: string, name: string): boolean {
  return detailField === name || detailField.endsWith(`.${name}`);
}

/**
 * The message with the API's field names said by their labels, starting with a capital. A name
 * that is also a plain word (phone, message, email) is replaced only as the message's subject,
 * its first word, so "phone must be a valid phone number" keeps its second "phone".
 */
export function inWords(message: string, labels: Record<string, string>): string {
  let text = withoutCode(message);
  // Longest first, so "limits.per_day" is replaced before "per_day" could be.
  for (const name of Object.keys(labels).sort((a, b) => b.length - a.length)) {
    const identifier = /[_.]/.test(name);
    const pattern = identifier ? `(?<![\\w.])(?:body\\.)?${escape(name)}(?![\\w])` : `^(?:body\\.)?${escape(name)}(?![\\w])`;
    text = text.replace(new RegExp(pattern, 'g'), labels[name]!);
  }
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The message without the error code some details start with for programs ("recipient_opted_out:
 * the recipient has opted out..."): a person reads the words after it.
 */
export function withoutCode(message: string): string {
  return message.replace(/^[a-z]+(?:_[a-z]+)+: /, '');
}
