// EDGAR's full submission text (`<accession>.txt`: SEC header, then each document in <DOCUMENT>…<TEXT>) → the raw
// ownership XML of a Form 3/4/5. Pure: text in, XML text out (parse/form4.ts reads it).
import { EdgarParseError, type ParseSubject } from "../errors.ts";

/**
 * The ownership XML inside a full submission: the first `<XML>…</XML>` block holding an `<ownershipDocument>`.
 * Used for a Form 4 that the daily index names before the company's submissions list it (so its primary document
 * name is unknown): the `.txt` carries the same XML, in one request.
 */
export function ownershipXmlFromSubmission(text: string, subject: ParseSubject = {}): string {
  let from = 0;
  for (;;) {
    const open = text.indexOf("<XML>", from);
    if (open < 0) break;
    const close = text.indexOf("</XML>", open);
    if (close < 0) break;
    const xml = text.slice(open + "<XML>".length, close).trim();
    if (xml.includes("<ownershipDocument")) return xml;
    from = close;
  }
  throw new EdgarParseError(subject, "the full submission holds no ownership XML document");
}
