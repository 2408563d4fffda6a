// The shell blocks of a guide, as a reader copies them: the fenced block right after a
// `<!-- doc-test: NAME -->` comment. Tests run these literally (with the guide's placeholders
// replaced by a real address or pairing URL), so a guide that drifts from what works fails a test.
import { readFileSync } from 'node:fs';

export function docBlock(file: string, name: string): string {
  const text = readFileSync(file, 'utf8');
  const marker = `<!-- doc-test: ${name} -->`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${file} has no ${marker}`);
  const block = /^\s*```(?:sh|ini)?\n([\s\S]*?)\n```/.exec(text.slice(at + marker.length));
  if (!block) throw new Error(`${file}: no fenced block right after ${marker}`);
  return `${block[1]!}\n`;
}

/** `text` with each placeholder replaced, failing when one is not there (the guide changed). */
export function filledIn(text: string, replacements: [string, string][]): string {
  let result = text;
  for (const [placeholder, value] of replacements) {
    if (!result.includes(placeholder)) throw new Error(`the guide's block no longer holds ${placeholder}:\n${text}`);
    result = result.split(placeholder).join(value);
  }
  return result;
}
