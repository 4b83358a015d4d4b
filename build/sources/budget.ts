// SEC's fair-access limit holds "regardless of the number of machines used": every builder process publishing to one
// store (a build, the follower) announces itself there with a weight and takes a whole number of SEC's 10 slots a
// second by weight, rereading the others every few seconds. Whole slots, because each process's own jitter can add
// one arrival to a fractional share; the slots of all processes sum to 10. A newcomer waits until the others have
// seen it before its first request; a process that dies stops counting once its claim expires.
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
  /** The whole budget: arrivals in any one second (SEC's ceiling). */
  total?: number;
  /** How often the others' claims are reread: the longest two processes can both use more than their share. */
  refreshMs?: number;
  /** A claim not renewed for this long no longer counts (its process died). */
  ttlMs?: number;
  onChange?: (share: { slots: number; rate: number; processes: number }) => void;
}

/** This process's share of the budget: its bucket paces every request of the sources given it. */
export class SharedBudget {
  readonly bucket: TokenBucket;
  readonly #storage: Storage;
  readonly #options: Required<Omit<BudgetOptions, "onChange">> & Pick<BudgetOptions, "onChange">;
  #timer: NodeJS.Timeout | null = null;
  #renewedAt = 0;
  #processes = 1;
  #slots: number;

  private constructor(storage: Storage, options: BudgetOptions) {
    this.#storage = storage;
    this.#options = { total: SEC_REQUESTS_PER_SECOND, refreshMs: 5_000, ttlMs: 60_000, ...options };
    this.bucket = new TokenBucket(this.#options.total);
    this.#slots = this.#options.total;
  }

  /** Claims a share, learns the others', and returns once they have had time to see this claim. */
  static async join(storage: Storage, options: BudgetOptions): Promise<SharedBudget> {
    const budget = new SharedBudget(storage, options);
    await budget.refresh();
    if (budget.#processes > 1) {
      await new Promise((r) => setTimeout(r, budget.#options.refreshMs + 1_000));
      await budget.refresh();
    }
    budget.#timer = setInterval(() => void budget.refresh().catch(() => {}), budget.#options.refreshMs);
    budget.#timer.unref();
    return budget;
  }

  /**
   * Renews this claim when due and takes this process's slots among the live claims. With no slot left (more
   * processes than slots), it makes no request until a reread gives it one.
   */
  async refresh(): Promise<void> {
    const { id, role, weight, total, refreshMs, ttlMs } = this.#options;
    const now = Date.now();
    const own = { id, role, weight, expires_at: new Date(now + ttlMs).toISOString() };
    if (now - this.#renewedAt > ttlMs / 3) {
      await writeJson(this.#storage, budgetKey(id), Claim, own);
      this.#renewedAt = now;
    }
    const claims = await Promise.all((await this.#storage.getKeys(BUDGET_PREFIX)).map((key) => readJson(this.#storage, key, Claim).catch(() => null)));
    const live = claims.filter((c): c is Claim => c !== null && Date.parse(c.expires_at) > now && c.id !== id);
    const slots = allocateSlots([own, ...live], total).get(id)!;
    if (slots === 0) this.bucket.pause(2 * refreshMs); // past the next reread, even a late one
    else if (slots !== this.bucket.slots) this.bucket.setSlots(slots);
    if (live.length + 1 !== this.#processes || slots !== this.#slots) {
      this.#processes = live.length + 1;
      this.#slots = slots;
      this.#options.onChange?.({ slots, rate: slots === 0 ? 0 : this.bucket.rate, processes: this.#processes });
    }
  }

  /** Leaves: the others take the whole budget back at their next reread. */
  async leave(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#storage.removeItem(budgetKey(this.#options.id)).catch(() => {});
  }
}

/**
 * Whole slots by weight, largest remainder first (ties: the heavier, then by id), so that every process reading the
 * same claims computes the same split and the slots sum to `total`.
 */
export function allocateSlots(claims: readonly { id: string; weight: number }[], total: number): Map<string, number> {
  const sorted = [...claims].sort((a, b) => (a.id < b.id ? -1 : 1));
  const weights = sorted.reduce((sum, c) => sum + c.weight, 0);
  const shares = sorted.map((c) => ({ c, exact: (total * c.weight) / weights })).map((s) => ({ ...s, slots: Math.floor(s.exact) }));
  let left = total - shares.reduce((sum, s) => sum + s.slots, 0);
  const byRemainder = [...shares].sort((a, b) => b.exact - b.slots - (a.exact - a.slots) || b.c.weight - a.c.weight || (a.c.id < b.c.id ? -1 : 1));
  for (const share of byRemainder) if (left-- > 0) share.slots++;
  return new Map(shares.map((s) => [s.c.id, s.slots]));
}
