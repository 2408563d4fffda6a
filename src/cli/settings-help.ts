// `sms-gateway serve --help` lists the settings from the README's Configuration table, so the
// table stays the one place they are described: a variable added there shows up here, and there
// is no second list to forget. Each gets one line: its name, default and the first sentence of
// its meaning, cut to fit.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../common/package-info.ts';

export interface Setting {
  name: string;
  default: string;
  meaning: string;
}

/** The rows of the first `| Variable | Default | Meaning |` table in `markdown`. */
export function settingsTable(markdown: string): Setting[] {
  const lines = markdown.split('\n');
  const header = lines.findIndex((line) => /^\|\s*Variable\s*\|\s*Default\s*\|\s*Meaning\s*\|/.test(line));
  if (header < 0) return [];
  const settings: Setting[] = [];
  // Past the header and its |---| line, up to the first line that is not a table row.
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    // A cell may hold an escaped \| (a shell pipe in an example): that one is not a border.
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => plain(cell.trim()));
    const [name, fallback, meaning] = cells;
    if (name && /^[A-Z][A-Z0-9_]*$/.test(name)) settings.push({ name, default: fallback ?? '', meaning: meaning ?? '' });
  }
  return settings;
}

/** Markdown as plain text: code marks dropped, links reduced to their words. */
function plain(cell: string): string {
  return cell
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\*\*([^*]*)\*\*/g, '$1')
    .replace(/\\\|/g, '|');
}

/** The first sentence of `text`, cut at a word to `width` characters at most. */
export function oneLine(text: string, width: number): string {
  const sentence = firstSentence(text);
  if (sentence.length <= width) return sentence;
  const cut = sentence.slice(0, width - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), width / 2)).replace(/[\s,;:(]+$/, '')}…`;
}

/** Up to the first full stop outside parentheses that a capital letter (or nothing) follows. */
function firstSentence(text: string): string {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '(') depth++;
    else if (char === ')') depth = Math.max(0, depth - 1);
    else if (char === '.' && depth === 0 && /^(\s+[A-Z]|\s*$)/.test(text.slice(i + 1))) return text.slice(0, i + 1);
  }
  return text;
}

/** The settings as aligned lines; a note instead when the README is not beside the package. */
export function settingsHelp(columns = process.stdout.columns || 120): string {
  let readme: string;
  try {
    readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');
  } catch {
    return 'The settings are listed in the README\'s "Configuration" section (README.md is not installed here).';
  }
  const settings = settingsTable(readme);
  if (settings.length === 0) return 'The settings are listed in the README\'s "Configuration" section.';
  const nameWidth = Math.max(...settings.map((setting) => setting.name.length));
  const defaultWidth = 14;
  return settings
    .map((setting) => {
      const fallback = setting.default.length > defaultWidth ? `${setting.default} ` : setting.default.padEnd(defaultWidth);
      const head = `  ${setting.name.padEnd(nameWidth)}  ${fallback} `;
      return `${head}${oneLine(setting.meaning, Math.max(40, columns - head.length - 1))}`;
    })
    .join('\n');
}
