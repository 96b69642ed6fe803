// CSV as every export writes it.

/**
 * One CSV field. Spreadsheets run a cell that starts with = + - @ (or a tab or CR before one) as a formula, and
 * exported cells hold text from people and the upstream: such a cell gets a leading apostrophe (OWASP's advice). Then
 * RFC 4180 quoting for commas, quotes and line breaks.
 */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record with its line end. */
export function csvRecord(fields: (string | number | null | undefined)[]): string {
  return `${fields.map(csvField).join(",")}\r\n`;
}

/**
 * The records of a whole CSV file, as RFC 4180 reads them (quoted fields may hold commas, quotes and line breaks;
 * records end with CRLF or LF). For reading exports back: the tests, and anyone scripting against them.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  const endRecord = () => {
    record.push(field);
    records.push(record);
    record = [];
    field = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      endRecord();
      i++;
    } else if (c === "\n") endRecord();
    else field += c;
  }
  if (field || record.length > 0) endRecord();
  return records;
}
