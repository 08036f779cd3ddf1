/**
 * One CSV record (RFC 4180 §2): cells separated by commas, a cell quoted when it holds a comma,
 * a quote, CR or LF, with its quotes doubled, and the record ended by CRLF.
 */

/** A cell's value: a report row's values. */
export type CsvValue = string | number | boolean | null;

/**
 * Characters that make a spreadsheet read a cell as a formula (OWASP "CSV injection"): a text
 * cell starting with one of them is prefixed with `'`, which spreadsheets show as text. Numbers
 * are written as numbers — a negative score is data, not a formula.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

function cell(value: CsvValue): string {
  if (value === null) return "";
  if (typeof value !== "string") return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The record for `values`, CRLF included. */
export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(cell).join(",")}\r\n`;
}
