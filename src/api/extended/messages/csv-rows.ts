// Reads CSV text record by record (RFC 4180: comma separated, "quoted" cells that may hold commas,
// line breaks and "" for a quote; records end with \n, \r\n or \r; empty lines are skipped), with
// limits checked as each character is read. A hostile body (a 2 MiB cell, a header of 100,000
// columns) is refused at the first character past a limit instead of being read whole, and the
// reader hands the event loop back every few thousand characters, so one tenant's upload never
// holds up everyone else's requests for long.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

/** Characters read between two yields to the event loop. */
const CHARACTERS_PER_SLICE = 32 * 1024;

export interface CsvLimits {
  /** Cells in one record; a record with more is refused as soon as the extra cell starts. */
  maxCells(record: number): number;
  /** Characters in cell `column` (0-based) of record `record` (0-based, the header is 0). */
  maxCellLength(record: number, column: number): number;
}

/** Why the text cannot be read, and where: `record` and `column` are 0-based; `line` is 1-based. */
export class CsvProblem extends Error {
  constructor(
    readonly kind: 'too_many_cells' | 'cell_too_long' | 'bad_quote' | 'unclosed_quote',
    readonly record: number,
    readonly column: number,
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

const COMMA = 44;
const QUOTE = 34;
const CR = 13;
const LF = 10;

/** The records of `text`, each an array of cells, read under `limits`. Throws CsvProblem. */
export async function* csvRecords(text: string, limits: CsvLimits): AsyncGenerator<string[]> {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let record = 0;
  let line = 1;
  let nextYield = i + CHARACTERS_PER_SLICE;
  while (i < text.length) {
    // An empty line is no record.
    const first = text.charCodeAt(i);
    if (first === LF || first === CR) {
      i += first === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      line++;
      continue;
    }
    const startLine = line;
    const cells: string[] = [];
    let ended = false;
    while (!ended) {
      const column = cells.length;
      if (column >= limits.maxCells(record)) {
        throw new CsvProblem('too_many_cells', record, column, startLine, `has more than ${limits.maxCells(record)} cells`);
      }
      const maxLength = limits.maxCellLength(record, column);
      let cell = '';
      if (text.charCodeAt(i) === QUOTE) {
        i++;
        // Quoted: up to the closing quote; "" is a quote inside.
        for (;;) {
          const close = text.indexOf('"', i);
          if (close < 0) throw new CsvProblem('unclosed_quote', record, column, startLine, 'has a quoted cell whose closing quote is missing');
          // Measured before the slice is copied: a huge cell is refused without building it.
          if (cell.length + (close - i) > maxLength) throw tooLong(record, column, startLine, maxLength);
          cell += text.slice(i, close);
          line += countLineBreaks(text, i, close);
          i = close + 1;
          if (text.charCodeAt(i) !== QUOTE) break;
          cell += '"';
          i++;
        }
        const after = text.charCodeAt(i);
        if (i < text.length && after !== COMMA && after !== LF && after !== CR) {
          throw new CsvProblem('bad_quote', record, column, startLine, 'has text after the closing quote of a cell (a quote inside a quoted cell is written "")');
        }
      } else {
        const start = i;
        while (i < text.length) {
          const code = text.charCodeAt(i);
          if (code === COMMA || code === LF || code === CR) break;
          if (code === QUOTE) {
            throw new CsvProblem('bad_quote', record, column, startLine, 'has a quote inside an unquoted cell (quote the whole cell, and write a quote inside it as "")');
          }
          i++;
          if (i - start > maxLength) throw tooLong(record, column, startLine, maxLength);
        }
        cell = text.slice(start, i);
      }
      cells.push(cell);
      const separator = text.charCodeAt(i);
      if (separator === COMMA) {
        i++;
      } else {
        ended = true;
        if (separator === CR) i += text.charCodeAt(i + 1) === LF ? 2 : 1;
        else if (separator === LF) i++;
        line++;
      }
    }
    yield cells;
    record++;
    if (i >= nextYield) {
      nextYield = i + CHARACTERS_PER_SLICE;
      await yieldToEventLoop();
    }
  }
}

function tooLong(record: number, column: number, line: number, maxLength: number): CsvProblem {
  return new CsvProblem('cell_too_long', record, column, line, `has a cell longer than ${maxLength} characters`);
}

function countLineBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at >= 0 && at < to; at = text.indexOf('\n', at + 1)) count++;
  return count;
}
