// What a text costs, counted by the gateway's own rules (the same modules the API uses), so the
// count here is the count the API will apply: characters as a person counts them, and the parts
// a phone splits the text into.
import { countCharacters, MESSAGE_MAX_CHARACTERS } from '../../../../src/common/characters.ts';
import { countSegments } from '../../../../src/common/sms-segments.ts';

const ENCODING_NAMES = { gsm7: 'GSM 7-bit', ucs2: 'UCS-2' } as const;

export function describeText(text: string): string {
  const characters = countCharacters(text);
  const { segments, encoding } = countSegments(text);
  return `${characters} ${characters === 1 ? 'character' : 'characters'} · ${segments} SMS (${ENCODING_NAMES[encoding]})`;
}

/** Past the API's limit: how many characters too many, said before Send rather than by a refusal after it. */
export function overLimit(text: string): string | undefined {
  const over = countCharacters(text) - MESSAGE_MAX_CHARACTERS;
  return over > 0 ? `${over} over the ${MESSAGE_MAX_CHARACTERS}-character limit: shorten it to send` : undefined;
}

/** Inline, so it can be a field's hint (which the field's input names as its description). */
export function SegmentCount({ text }: { text: string }) {
  const warning = overLimit(text);
  return (
    <span class={warning ? 'sms-segment-count sms-segment-count-over' : 'sms-segment-count'} data-testid="segment-count" aria-live="polite">
      {describeText(text)}
      {warning && <strong data-testid="segment-count-over"> · {warning}</strong>}
    </span>
  );
}
