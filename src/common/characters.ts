// Counts characters the way a person does: by grapheme cluster. "é" written as e + combining
// accent, a flag, or a thumbs-up with a skin tone are each one character (at most
// 170 characters "counted in characters not bytes, for any alphabet").
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Characters in `text`; stops counting once past `stopAfter`, so a limit check stays cheap. */
/** The most characters an SMS text may have, counted by countCharacters (the API refuses more; the panel warns). */
export const MESSAGE_MAX_CHARACTERS = 170;

export function countCharacters(text: string, stopAfter = Number.POSITIVE_INFINITY): number {
  let count = 0;
  for (const _ of segmenter.segment(text)) {
    if (++count > stopAfter) break;
  }
  return count;
}

/**
 * UTF-16 units one character may take, on average over a text. Real characters take a few (a
 * family emoji 11, a subdivision flag 14); a grapheme cluster has no bound of its own, and "a"
 * with 30,000 combining accents is one. Past this a text is too long by its size alone: it would
 * otherwise be one character and hundreds of SMS parts, more than a concatenated SMS can number.
 */
export const MAX_UNITS_PER_CHARACTER = 24;

export function exceedsCharacters(text: string, limit: number): boolean {
  if (text.length > limit * MAX_UNITS_PER_CHARACTER) return true;
  // A character is at least one UTF-16 unit, and at least one code point: a string no longer than
  // the limit in either fits. Both are cheap to count; the grapheme segmenter costs microseconds
  // a character, so emoji text (two units a code point, two code points a character) is spared it.
  return text.length > limit && codePointsExceed(text, limit) && countCharacters(text, limit) > limit;
}

function codePointsExceed(text: string, limit: number): boolean {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // The second half of a surrogate pair belongs to the code point its first half began.
    if (unit >= 0xdc00 && unit <= 0xdfff && i > 0) {
      const previous = text.charCodeAt(i - 1);
      if (previous >= 0xd800 && previous <= 0xdbff) continue;
    }
    if (++count > limit) return true;
  }
  return false;
}
