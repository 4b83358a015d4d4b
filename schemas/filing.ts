// The filing item served by /filings/latest: one EDGAR filing from a company's submissions history.
import { z } from "zod";
import { Accession, IsoDate, IsoDateTime } from "./primitives.ts";

/** One filing, with absolute URLs back to EDGAR (DESIGN "Field names": Filing). */
export const FilingItem = z
  .object({
    accession_number: Accession,
    form: z.string().min(1).meta({ example: "10-K" }),
    filed_at: IsoDate.meta({ description: "Filing date (EDGAR's filingDate)." }),
    accepted_at: IsoDateTime.nullable().meta({ description: "EDGAR acceptance time, UTC." }),
    report_date: IsoDate.nullable().meta({ description: "Period of report, when the form has one." }),
    primary_document: z.string().nullable(),
    primary_document_description: z.string().nullable(),
    url: z.url().nullable().meta({ description: "Absolute URL of the primary document." }),
    index_url: z.url().meta({ description: "Absolute URL of the filing index page." }),
    items: z.array(z.string()).meta({ description: "8-K item numbers, e.g. [\"2.02\", \"9.01\"]; empty for other forms." }),
    size: z.number().int().nonnegative().nullable().meta({ description: "Size of the submission in bytes." }),
    is_xbrl: z.boolean(),
    is_inline_xbrl: z.boolean(),
    file_number: z.string().nullable(),
    act: z.string().nullable(),
  })
  .meta({ id: "FilingItem" });
export type FilingItem = z.infer<typeof FilingItem>;
