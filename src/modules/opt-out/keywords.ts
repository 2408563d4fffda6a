// Which received texts are opt-out keywords. A text is a keyword only when it is one whole: with
// the spaces and punctuation around it dropped ("STOP.", "Stop!", "¡ALTO!" are STOP and ALTO: people
// end a one-word answer as they end a sentence), and case and accents folded (Unicode-aware: "СТОП",
// "stop", "Arrêt" and "ARRET" all match). A sentence that merely contains "stop" never unsubscribes
// anyone: punctuation is dropped only around the keyword, never inside the text.

/** Texts that put the sender on the suppression list. */
export const STOP_KEYWORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'СТОП', 'ОТПИСАТЬСЯ', 'ARRÊT', 'ARRET', 'ALTO', 'PARAR'];
/** Texts that take the sender off it. */
export const START_KEYWORDS = ['START', 'UNSTOP', 'СТАРТ'];
/** Texts answered with the account's help text. */
export const HELP_KEYWORDS = ['HELP', 'ПОМОЩЬ', 'AIDE'];

/** Longest text worth comparing: no keyword is longer, so a long SMS costs nothing. */
const MAX_KEYWORD_LENGTH = 40;

/**
 * Spaces and punctuation (any script's: "¡", "。", "!") at either end of a text. The trailing run
 * is tried only where a run starts, so a long text full of "! ! !" costs one pass, not one per mark.
 */
const SURROUNDING = /^[\s\p{P}]+|(?<![\s\p{P}])[\s\p{P}]+$/gu;

/**
 * The form texts are compared in: compatibility forms and accents removed (so a full-width "ＳＴＯＰ！"
 * is "STOP!"), spaces and punctuation around it dropped, inner spaces collapsed, upper case.
 */
export function foldKeyword(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(SURROUNDING, '')
    .replace(/\s+/gu, ' ')
    .toLocaleUpperCase('und');
}

export type KeywordKind = 'stop' | 'start' | 'help';

export interface KeywordMatch {
  kind: KeywordKind;
  /** The keyword as it was received (trimmed, its punctuation kept), for the records. */
  keyword: string;
}

const folded = (words: readonly string[]) => new Set(words.map(foldKeyword));
const STOP = folded(STOP_KEYWORDS);
const START = folded(START_KEYWORDS);
const HELP = folded(HELP_KEYWORDS);

/** What the text asks for, or undefined when it is no keyword. `extraStop` are the account's own stop words. */
export function matchKeyword(text: string, extraStop: readonly string[] = []): KeywordMatch | undefined {
  if (text.length > MAX_KEYWORD_LENGTH * 4) return undefined;
  const word = foldKeyword(text);
  if (word.length === 0 || word.length > MAX_KEYWORD_LENGTH) return undefined;
  const keyword = text.trim();
  if (STOP.has(word) || extraStop.some((extra) => foldKeyword(extra) === word)) return { kind: 'stop', keyword };
  if (START.has(word)) return { kind: 'start', keyword };
  if (HELP.has(word)) return { kind: 'help', keyword };
  return undefined;
}
