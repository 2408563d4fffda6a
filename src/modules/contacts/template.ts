// Message templates: text with placeholders filled per contact. {{name}}, {{first_name}} (the
// name's first word), {{last_name}} (the rest), {{phone}}, and {{fields.<key>}} for a custom
// field. A placeholder the template language does not know is refused when the template is
// written; one a contact has no value for is that recipient's error when it is sent.
import { AppError } from '../../common/errors.ts';
import type { ContactRow } from './types.ts';

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const KNOWN = /^(name|first_name|last_name|phone|fields\.[A-Za-z0-9_-]{1,32})$/;

/** The placeholders of `text`, as written between the braces. */
export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

/** Refuses a text with a placeholder the template language does not know (field: where the text came from). */
export function checkTemplateText(text: string, field: string): void {
  const unknown = placeholdersOf(text).filter((name) => !KNOWN.test(name));
  if (unknown.length > 0) {
    const message = `unknown placeholder ${unknown.map((name) => `{{${name}}}`).join(', ')}; use {{name}}, {{first_name}}, {{last_name}}, {{phone}} or {{fields.<key>}}`;
    throw new AppError('validation_failed', message, [{ field, message }]);
  }
}

function valueOf(contact: Pick<ContactRow, 'name' | 'phone' | 'fields'>, placeholder: string): string {
  const words = contact.name.trim().split(/\s+/).filter(Boolean);
  switch (placeholder) {
    case 'name':
      return contact.name.trim();
    case 'first_name':
      return words[0] ?? '';
    case 'last_name':
      return words.slice(1).join(' ');
    case 'phone':
      return contact.phone;
    default:
      return contact.fields[placeholder.slice('fields.'.length)] ?? '';
  }
}

/** The text for one contact, or the placeholders it has no value for. */
export function render(text: string, contact: Pick<ContactRow, 'name' | 'phone' | 'fields'>): { text: string; missing?: undefined } | { missing: string[]; text?: undefined } {
  const missing = new Set<string>();
  const rendered = text.replace(PLACEHOLDER, (_whole, placeholder: string) => {
    const value = valueOf(contact, placeholder);
    if (value === '') missing.add(placeholder);
    return value;
  });
  return missing.size > 0 ? { missing: [...missing] } : { text: rendered };
}
