// EDGAR's daily form index (`Archives/edgar/daily-index/YYYY/QTRn/form.YYYYMMDD.idx`) → one record per row.
// Pure: text in, rows out. Fixed-width columns under a header; a filing appears once for each CIK it names.
import { EdgarParseError, type ParseSubject } from "../errors.ts";

/** One row of a daily form index: a filing as listed under one of its filer CIKs. */
export interface DailyIndexRow {
  form: string;
  company: string;
  cik: number;
  /** YYYY-MM-DD. */
  filed_at: string;
  accession: string;
}

// From the right, where the columns are unambiguous: CIK, date filed (YYYYMMDD), and the .txt file named by accession.
const TAIL = /\s(\d{1,10})\s+(\d{4})(\d{2})(\d{2})\s+edgar\/data\/\d+\/(\d{10}-\d{2}-\d{6})\.txt\s*$/;

/** Parses a form.idx; a row that does not fit the columns is an error naming the file and the line. */
export function parseDailyFormIndex(text: string, subject: ParseSubject = {}): DailyIndexRow[] {
  const lines = text.split(/\r?\n/);
  const header = lines.findIndex((l) => l.startsWith("Form Type") && l.includes("Company Name"));
  if (header < 0 || !/^-{20,}/.test(lines[header + 1] ?? "")) throw new EdgarParseError(subject, "not a daily form index (no column header)");
  // Form types carry spaces ("SC 13G/A", "1-A POS"), so the company column is found from the header, not by splitting.
  const companyAt = lines[header]!.indexOf("Company Name");
  const rows: DailyIndexRow[] = [];
  for (let i = header + 2; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    const m = TAIL.exec(line);
    if (!m) throw new EdgarParseError(subject, `line ${i + 1} does not fit the index columns: "${line.trim().slice(0, 80)}"`);
    const left = line.slice(0, m.index);
    rows.push({
      form: left.slice(0, companyAt).trim(),
      company: left.slice(companyAt).trim(),
      cik: Number(m[1]),
      filed_at: `${m[2]}-${m[3]}-${m[4]}`,
      accession: m[5]!,
    });
  }
  return rows;
}
