import "server-only";
import type { UpstreamApi } from "../upstream";
import { RecentReads } from "../upstream/recent-reads";

// A link's accounts as a link's page last read them, kept 30 s in this process: GET /links/{id}/accounts allows 4 calls
// a minute per link upstream (Linkdesk's share is half of that), so people opening the same link in the same half
// minute share one read instead of finding the accounts refused. Balances change far more slowly than that.

export const ACCOUNTS_MAX_AGE_MS = 30_000;
/** Links kept at once; a link's accounts are a few kB. */
const MAX_LINKS = 256;

type Accounts = Awaited<ReturnType<UpstreamApi["getAccounts"]>>;

interface Shared {
  cache?: RecentReads<Accounts>;
}
// On globalThis: Next.js may evaluate this module more than once in one process.
const shared: Shared = ((globalThis as { [key: symbol]: Shared })[Symbol.for("linkdesk.recent-accounts")] ??= {});

/** This process's recent account reads, reading through `api`. */
export function recentAccounts(api: UpstreamApi): RecentReads<Accounts> {
  shared.cache ??= new RecentReads((linkId, opts) => api.getAccounts(linkId, {}, opts), {
    maxAgeMs: ACCOUNTS_MAX_AGE_MS,
    maxKeys: MAX_LINKS,
  });
  return shared.cache;
}

/** A link's accounts for its page: a read of the last 30 s or a new one, never waiting for the budget ("view"). */
export async function accountsForView(
  api: UpstreamApi,
  linkId: string,
): Promise<Accounts & { readAt: number; now: number }> {
  const read = await recentAccounts(api).get(linkId, { mode: "view" });
  return { ...read, now: Date.now() };
}
