import { formatAgo } from "@/components/data-table/relative-time";
import { UpstreamProblem } from "@/components/upstream-problem";
import { accountsForView } from "@/lib/links/recent-accounts";
import { upstream } from "@/lib/upstream";
import { AccountsTable } from "./accounts-table";

/**
 * The link's accounts, read from the upstream (GET /links/{id}/accounts) or from a read of the last 30 s, streamed in
 * on its own. A page's read never waits for the rate budget: with no room now, it says when the next slot is.
 */
export async function LinkAccounts({ linkId }: { linkId: string }) {
  let read;
  try {
    read = await accountsForView(upstream(), linkId);
  } catch (error) {
    return <UpstreamProblem error={error} />;
  }
  return (
    <>
      {read.now - read.readAt >= 10_000 ? (
        <p className="mb-1 text-xs text-slate-500" data-testid="accounts-read-at">
          Read from the upstream {formatAgo(read.readAt, read.now)}.
        </p>
      ) : null}
      <AccountsTable accounts={read.accounts} />
    </>
  );
}

export function LinkAccountsSkeleton() {
  return (
    <div
      aria-busy="true"
      aria-label="Loading the link's accounts"
      className="h-24 animate-pulse rounded-lg bg-slate-200"
    />
  );
}
