// Typed builder errors: each names what failed (a CIK, an accession, a path) so an operator can find it.

/** What a parse error is about: the company or filing whose input was bad. */
export interface ParseSubject {
  cik?: number | string;
  accession?: string;
  path?: string;
}

/** Input from EDGAR that a parser cannot turn into records (truncated, wrong document, missing fields). */
export class EdgarParseError extends Error {
  override readonly name: string = "EdgarParseError";
  readonly subject: ParseSubject;
  constructor(subject: ParseSubject, message: string, options?: { cause?: unknown }) {
    super(`${describeSubject(subject)}: ${message}`, options);
    this.subject = subject;
  }
}

/**
 * EDGAR input with a defect EDGAR does not produce — a duplicate key or element, bytes that are not UTF-8, an
 * impossible or reversed date, nesting deeper than EDGAR's — which a lenient reader would turn silently into other
 * data (a repeated key replaces the first). The company fails, keeps its previous documents, and the manifest and
 * `audit` name the file and the defect.
 */
export class MalformedInputError extends EdgarParseError {
  override readonly name = "MalformedInputError";
  /** What is wrong, without the subject ("duplicate key \"us-gaap\" in facts"). */
  readonly defect: string;
  constructor(subject: ParseSubject, defect: string) {
    super(subject, defect);
    this.defect = defect;
  }
}

/**
 * A filing's XBRL that cannot be read (truncated, not XBRL, a fact naming a context it lacks): that filing's segments
 * are left out and named in the manifest; the rest of the company's are served (issue 43.4).
 */
export class XbrlDocumentError extends EdgarParseError {
  override readonly name = "XbrlDocumentError";
}

/** A company facts file without us-gaap or ifrs-full facts: the company has no XBRL financial history. */
export class NoXbrlHistoryError extends EdgarParseError {
  override readonly name = "NoXbrlHistoryError";
}

/** "CIK 320193", "accession 0000320193-24-000123", or the path, whichever the subject names. */
export function describeSubject(subject: ParseSubject): string {
  const parts: string[] = [];
  if (subject.cik !== undefined) parts.push(`CIK ${subject.cik}`);
  if (subject.accession) parts.push(`accession ${subject.accession}`);
  if (subject.path) parts.push(subject.path);
  return parts.join(", ") || "EDGAR input";
}

/** Parses JSON text, turning a syntax error (a truncated body, an HTML page) into an EdgarParseError. */
export function parseJsonText(text: string, subject: ParseSubject): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw notJsonError(text, subject, cause);
  }
}

/** The error for text that is not the JSON it should be, showing its start (a truncated body, an HTML page). */
export function notJsonError(text: string, subject: ParseSubject, cause: unknown): EdgarParseError {
  const head = text.slice(0, 60).replace(/\s+/g, " ");
  const detail = cause instanceof Error && cause.name === "JsonScanError" ? `: ${cause.message}` : "";
  return new EdgarParseError(subject, `not valid JSON (${text.length} bytes, starts "${head}")${detail}`, { cause });
}
