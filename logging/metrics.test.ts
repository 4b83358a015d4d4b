// The shared metrics module: a registry served in Prometheus' text format on its own listener (GET /metrics only),
// written atomically as a node exporter textfile, counters and histograms fed from plain numbers, warn/error lines counted.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Gauge } from "prom-client";
import { afterAll, describe, expect, it } from "vitest";
import { parseSamples, scrape, total } from "../test/_metrics.ts";
import { countEvents, createRegistry, serveMetrics, TallyCounter, TallyHistogram, writeMetricsFile } from "./metrics.ts";

const dir = mkdtempSync(join(tmpdir(), "metrics-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("serveMetrics", () => {
  it("serves the registry at GET /metrics on its own loopback port, and nothing else", async () => {
    const registry = createRegistry({ process: true });
    const tally = new TallyCounter(registry, "fds_test_total", "A test counter.", ["route"]);
    const logged: string[] = [];
    const listener = await serveMetrics(registry, { host: "127.0.0.1", port: 0 }, (_level, event) => void logged.push(event));
    try {
      expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect(logged).toEqual(["metrics_listening"]);
      tally.add("/a", 2, () => ({ route: "/a" }));
      tally.add("/a", 1, () => ({ route: "/never asked again" }));
      tally.add("/b", 5, () => ({ route: "/b" }));
      const samples = await scrape(listener.url);
      expect(total(samples, "fds_test_total", { route: "/a" })).toBe(3);
      expect(total(samples, "fds_test_total", { route: "/b" })).toBe(5);
      expect(total(samples, "process_cpu_seconds_total")).toBeGreaterThan(0);
      const base = listener.url.replace(/\/metrics$/, "");
      expect((await fetch(`${base}/`)).status).toBe(404);
      expect((await fetch(`${base}/metrics/x`)).status).toBe(404);
      expect((await fetch(listener.url, { method: "POST" })).status).toBe(405);
      expect(await (await fetch(listener.url, { method: "HEAD" })).text()).toBe("");
    } finally {
      await listener.close();
    }
    await expect(fetch(listener.url)).rejects.toThrow();
  });

  it("refuses to start on a port taken, rather than serving nothing", async () => {
    const first = await serveMetrics(createRegistry({ process: false }), { host: "127.0.0.1", port: 0 }, () => {});
    try {
      const port = Number(new URL(first.url).port);
      await expect(serveMetrics(createRegistry({ process: false }), { host: "127.0.0.1", port }, () => {})).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});

describe("writeMetricsFile", () => {
  it("replaces the file whole, in the text format, leaving no temporary file behind", async () => {
    const path = join(dir, "fds_build.prom");
    writeFileSync(path, "fds_old 1\n");
    const registry = createRegistry({ process: false });
    new Gauge({ name: "fds_build_tickers", help: "Tickers.", registers: [registry] }).set(42);
    await writeMetricsFile(path, registry);
    const text = readFileSync(path, "utf8");
    expect(text).toContain("# TYPE fds_build_tickers gauge");
    expect(total(parseSamples(text), "fds_build_tickers")).toBe(42);
    expect(text).not.toContain("fds_old");
    expect(readdirSync(dir)).toEqual(["fds_build.prom"]);
  });

  it("leaves the last file as it was when the new one cannot be written", async () => {
    const path = join(dir, "missing-folder", "fds_build.prom");
    await expect(writeMetricsFile(path, createRegistry({ process: false }))).rejects.toThrow(/ENOENT/);
    expect(existsSync(join(dir, "missing-folder"))).toBe(false);
  });
});

describe("TallyHistogram", () => {
  it("reads as a Prometheus histogram: cumulative buckets by le, +Inf, sum and count, per label set", async () => {
    const registry = createRegistry({ process: false });
    const histogram = new TallyHistogram(registry, "fds_test_seconds", "A test histogram.", [0.001, 0.01, 0.1]);
    const a = histogram.series("/a", () => ({ route: "/a" }));
    for (const seconds of [0.0005, 0.001, 0.002, 0.05, 3]) a.observe(seconds);
    histogram.series("/b", () => ({ route: "/b" })).observe(0.02);
    expect(histogram.series("/a", () => ({ route: "never asked" }))).toBe(a);
    const text = await registry.metrics();
    expect(text).toContain("# TYPE fds_test_seconds histogram");
    const samples = parseSamples(text);
    const bucket = (route: string, le: string) => total(samples, "fds_test_seconds_bucket", { route, le });
    expect([bucket("/a", "0.001"), bucket("/a", "0.01"), bucket("/a", "0.1"), bucket("/a", "+Inf")]).toEqual([2, 3, 4, 5]);
    expect(total(samples, "fds_test_seconds_count", { route: "/a" })).toBe(5);
    expect(total(samples, "fds_test_seconds_sum", { route: "/a" })).toBeCloseTo(3.0535, 9);
    expect([bucket("/b", "0.01"), bucket("/b", "0.1"), bucket("/b", "+Inf")]).toEqual([0, 1, 1]);
  });
});

describe("countEvents", () => {
  it("counts warn and error lines by event, and passes every line on", async () => {
    const registry = createRegistry({ process: false });
    const seen: string[] = [];
    const log = countEvents(registry, (level: "info" | "warn" | "error", event) => void seen.push(`${level} ${event}`));
    log("info", "request");
    log("warn", "feed_unreadable");
    log("warn", "feed_unreadable");
    log("error", "unhandled");
    expect(seen).toEqual(["info request", "warn feed_unreadable", "warn feed_unreadable", "error unhandled"]);
    const samples = parseSamples(await registry.metrics());
    expect(total(samples, "fds_log_events_total", { level: "warn", event: "feed_unreadable" })).toBe(2);
    expect(total(samples, "fds_log_events_total", { level: "error", event: "unhandled" })).toBe(1);
    expect(total(samples, "fds_log_events_total", { event: "request" })).toBe(0);
  });
});
