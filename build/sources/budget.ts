// SEC's fair-access limit holds "regardless of the number of machines used": every builder process publishing to one
// store (a build, the follower) announces itself there with a weight and paces at its weighted share of our 9 a
// second, rereading the others every few seconds. A newcomer waits until the others have seen it before its first
// request; a process that dies stops counting once its claim expires.
import type { Storage } from "unstorage";
import { z } from "zod";
import { readJson, writeJson } from "../../storage/json.ts";
import { BUDGET_PREFIX, budgetKey } from "../../storage/layout.ts";
import { SEC_REQUESTS_PER_SECOND, TokenBucket } from "./rate-limit.ts";

const Claim = z.object({ id: z.string(), role: z.string(), weight: z.number().positive(), expires_at: z.iso.datetime() });
type Claim = z.infer<typeof Claim>;

/** How a process joins: who it is, its weight (the follower, latency-bound, weighs more than a build), and timing. */
export interface BudgetOptions {
  id: string;
  role: string;
  weight: number;
  /** The whole budget, requests a second (our pace against SEC). */
  total?: number;
  /** How often the others' claims are reread: the longest two processes can both use more than their share. */
  refreshMs?: number;
  /** A claim not renewed for this long no longer counts (its process died). */
  ttlMs?: number;
  onChange?: (share: { rate: number; processes: number }) => void;
}

/** This process's share of the budget: its bucket paces every request of the sources given it. */
export class SharedBudget {
  readonly bucket: TokenBucket;
  readonly #storage: Storage;
  readonly #options: Required<Omit<BudgetOptions, "onChange">> & Pick<BudgetOptions, "onChange">;
  #timer: NodeJS.Timeout | null = null;
  #renewedAt = 0;
  #processes = 1;

  private constructor(storage: Storage, options: BudgetOptions) {
    this.#storage = storage;
    this.#options = { total: SEC_REQUESTS_PER_SECOND, refreshMs: 5_000, ttlMs: 60_000, ...options };
    this.bucket = new TokenBucket(this.#options.total);
  }

  /** Claims a share, learns the others', and returns once they have had time to see this claim. */
  static async join(storage: Storage, options: BudgetOptions): Promise<SharedBudget> {
    const budget = new SharedBudget(storage, options);
    await budget.refresh();
    if (budget.#processes > 1) await new Promise((r) => setTimeout(r, budget.#options.refreshMs + 1_000));
    budget.#timer = setInterval(() => void budget.refresh().catch(() => {}), budget.#options.refreshMs);
    budget.#timer.unref();
    return budget;
  }

  /** Renews this claim when due and paces at this process's weighted share of the live claims. */
  async refresh(): Promise<void> {
    const { id, role, weight, total, ttlMs } = this.#options;
    const now = Date.now();
    if (now - this.#renewedAt > ttlMs / 3) {
      await writeJson(this.#storage, budgetKey(id), Claim, { id, role, weight, expires_at: new Date(now + ttlMs).toISOString() });
      this.#renewedAt = now;
    }
    const claims = await Promise.all((await this.#storage.getKeys(BUDGET_PREFIX)).map((key) => readJson(this.#storage, key, Claim).catch(() => null)));
    const live = claims.filter((c): c is Claim => c !== null && Date.parse(c.expires_at) > now && c.id !== id);
    const rate = (total * weight) / (weight + live.reduce((sum, c) => sum + c.weight, 0));
    if (live.length + 1 !== this.#processes || Math.abs(rate - this.bucket.rate) > 0.01) {
      this.#processes = live.length + 1;
      this.bucket.setRate(rate);
      this.#options.onChange?.({ rate, processes: this.#processes });
    }
  }

  /** Leaves: the others take the whole budget back at their next reread. */
  async leave(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#storage.removeItem(budgetKey(this.#options.id)).catch(() => {});
  }
}
