import { UpstreamProblem } from "@/components/upstream-problem";
import { upstream } from "@/lib/upstream";
import { AccountsTable } from "./accounts-table";

/** The link's accounts, read live (GET /links/{id}/accounts, one call within the rate budget), streamed in on its own. */
export async function LinkAccounts({ linkId }: { linkId: string }) {
  let accounts;
  try {
    ({ accounts } = await upstream().getAccounts(linkId));
  } catch (error) {
    return <UpstreamProblem error={error} />;
  }
  return <AccountsTable accounts={accounts} />;
}

export function LinkAccountsSkeleton() {
  return <div aria-busy="true" aria-label="Loading the link's accounts" className="h-24 animate-pulse rounded-lg bg-slate-200" />;
}
