import { withStaff } from "@/lib/auth/with-staff";
import { getDb } from "@/lib/db/client";
import { storedLink } from "@/lib/links/stored-link";
import { upstreamFailureResponse } from "@/lib/http/api-errors";
import { parseTransactionFilters } from "@/lib/transactions/filters";
import { transactionHistory } from "@/lib/transactions/history";
import { transactionsPage } from "@/lib/transactions/view";
import { upstream } from "@/lib/upstream";

const noStore = { "Cache-Control": "no-store" };

// A link's transactions as the correction desk shows them: filtered (the desk's URL parameters), one page of up to
// 1,000, with the marks of earlier corrections. `all=1` answers every matching row (a bulk correction of the whole
// filter). Served from the link's briefly cached history, so filtering and paging spend no upstream calls.
export const GET = withStaff<{ linkId: string }>(
  "read",
  { mayNot: "read transactions" },
  async (request, _staff, { linkId }) => {
    const search = new URL(request.url).searchParams;
    const all = search.get("all") === "1";
    search.delete("all");
    const { filters, page, dropped } = parseTransactionFilters(search);
    try {
      const { db } = await getDb();
      const stored = await storedLink(db, linkId);
      const history = await transactionHistory(upstream()).get(linkId, {}, stored?.transactionsChangedAt?.getTime());
      const view = await transactionsPage(db, linkId, history, { filters, page }, { all });
      return Response.json({ ...view, dropped }, { headers: noStore });
    } catch (error) {
      return upstreamFailureResponse(error, noStore);
    }
  },
);
