// Counts characters the way a person does: by grapheme cluster. "é" written as e + combining
// accent, a flag, or a thumbs-up with a skin tone are each one character (at most
// 170 characters "counted in characters not bytes, for any alphabet").
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Characters in `text`; stops counting once past `stopAfter`, so a limit check stays cheap. */
export function countCharacters(text: string, stopAfter = Number.POSITIVE_INFINITY): number {
  let count = 0;
  for (const _ of segmenter.segment(text)) {
    if (++count > stopAfter) break;
  }
  return count;
}

export function exceedsCharacters(text: string, limit: number): boolean {
  // A character is at least one UTF-16 unit, so a string no longer than the limit in units fits.
  return text.length > limit && countCharacters(text, limit) > limit;
}
