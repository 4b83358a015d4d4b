// The follower's metrics as operators get them (issue 42): `dataset follow` with METRICS_PORT serves, on its own
// loopback port, its lag, its pace against EDGAR and what it did — and they move as filings are accepted and published.
import { expect, it } from "vitest";
import { describeEdgar } from "../../test/_edgar.ts";
import { useFollowerSuite } from "../../test/_follow-suite.ts";
import { scrape, total, type Sample } from "../../test/_metrics.ts";
import { readPublished } from "../publish/snapshot.ts";

describeEdgar("the follower's metrics", () => {
  const { setup, accept, unpublished, cli } = useFollowerSuite();

  it("serve its lag, its EDGAR requests and what it published on a loopback port, moving with each filing published", async () => {
    const { replay, location, storage } = await setup(20);
    const follower = cli(replay, location, [], { METRICS_PORT: "0" });
    const url = (await follower.waitFor("metrics_listening")).url as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    await follower.waitFor("follow_started");
    const before = await scrape(url);
    expect(total(before, "fds_follow_filings_published_total")).toBe(0);

    await accept(replay, 6);
    await expect.poll(() => unpublished(replay, storage), { timeout: 30_000, interval: 200 }).toEqual([]);
    const published = async () => (await readPublished(storage))!.manifest.follow?.published_filings ?? 0;
    await expect.poll(published, { timeout: 10_000 }).toBeGreaterThan(0);
    // Scraped once the follower has counted every filing the store says it published.
    let after: Sample[] = [];
    await expect.poll(async () => total((after = await scrape(url)), "fds_follow_filings_published_total"), { timeout: 10_000 }).toBe(await published());
    const moved = (name: string, labels: Record<string, string> = {}) => total(after, name, labels) - total(before, name, labels);

    expect(moved("fds_follow_polls_total")).toBeGreaterThan(0);
    expect(moved("fds_follow_publishes_total")).toBeGreaterThan(0);
    expect(moved("fds_follow_documents_written_total")).toBeGreaterThan(0);
    expect(moved("fds_follow_edgar_requests_total")).toBeGreaterThan(0);
    expect(total(after, "fds_follow_edgar_requests_per_second")).toBeGreaterThan(0);
    // Each filing's lag, seen in the feed → published: observed once per filing, and summarised over the last hour.
    expect(moved("fds_follow_lag_seconds_count")).toBe(await published());
    expect(moved("fds_follow_lag_seconds_sum")).toBeGreaterThan(0);
    expect(total(after, "fds_follow_lag_recent_seconds", { quantile: "1" })).toBeGreaterThan(0);
    expect(Date.now() / 1000 - total(after, "fds_follow_last_poll_timestamp_seconds")).toBeLessThan(30);
    expect(total(after, "fds_follow_position_timestamp_seconds")).toBeGreaterThan(Date.parse("2026-01-01") / 1000);
    expect(total(after, "process_cpu_seconds_total")).toBeGreaterThan(0);
    expect(total(after, "fds_log_events_total", { level: "error" })).toBe(0);

    follower.child.kill("SIGTERM");
    expect((await follower.exited).code).toBe(0);
    await expect(fetch(url)).rejects.toThrow(); // the listener stops with the follower
  }, 90_000);
});
