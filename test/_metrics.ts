// Scraping a program's metrics as Prometheus does, for tests: its text format read into samples, and sums of them.

/** One sample of the text format: a metric's name, its labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** GETs a metrics URL and reads its samples; fails unless the answer is Prometheus' text format. */
export async function scrape(url: string): Promise<Sample[]> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  if (!response.headers.get("content-type")?.startsWith("text/plain; version=0.0.4")) throw new Error(`${url} is not the text format`);
  return parseSamples(await response.text());
}

/** The samples of Prometheus' text exposition format (comments and blank lines skipped). */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample: ${line}`);
    const labels = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of `name`'s samples whose labels include `labels` (0 when there are none). */
export function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}
