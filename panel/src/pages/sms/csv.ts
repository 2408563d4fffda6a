// Reading a CSV file only to show its rows beside the API's verdict and to send back the valid
// ones; what the cells mean, and whether they are right, is decided by the API's dry run.
// RFC 4180: fields separated by commas, quoted with " (doubled inside), rows by CRLF or LF.
// Blank lines are skipped, as the gateway's reader skips them, so row N here is message N there.

export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const source = text.replace(/^\uFEFF/, '');
  const endRow = () => {
    row.push(field);
    if (row.length > 1 || row[0] !== '') rows.push(row);
    row = [];
    field = '';
  };
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (quoted) {
      if (char === '"' && source[i + 1] === '"') (field += '"'), i++;
      else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') row.push(field), (field = '');
    else if (char === '\n') endRow();
    else if (char !== '\r') field += char;
  }
  if (field !== '' || row.length > 0) endRow();
  return rows;
}

export function toCsv(rows: string[][]): string {
  return rows.map((row) => row.map(quote).join(',')).join('\r\n') + '\r\n';
}

function quote(field: string): string {
  return /[",\r\n]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field;
}
