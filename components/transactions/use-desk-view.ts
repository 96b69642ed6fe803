"use client";

import { useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import { parseTransactionFilters, transactionViewQuery } from "@/lib/transactions/filters";

// The desk's view is the URL: filters, search, sort and page, and the bulk job shown beside the table (`job`).

export function useDeskView() {
  const searchParams = useSearchParams();
  // The view's part of the URL, normalised as on the server, so the first render's data is reused.
  const query = useMemo(() => transactionViewQuery(new URLSearchParams(searchParams.toString())), [searchParams]);
  const { filters } = useMemo(() => parseTransactionFilters(new URLSearchParams(query)), [query]);
  const jobId = searchParams.get("job");

  /** Changes URL parameters without a server round trip: the table refetches from the link's cached history. */
  const setParams = useCallback((changes: Record<string, string | null>, replaceView?: string) => {
    const next = new URLSearchParams(replaceView ?? window.location.search);
    if (replaceView !== undefined) {
      const job = new URLSearchParams(window.location.search).get("job");
      if (job) next.set("job", job);
    }
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) next.delete(key);
      else next.set(key, value);
    }
    const search = next.toString();
    window.history.pushState(null, "", `${window.location.pathname}${search ? `?${search}` : ""}`);
  }, []);

  return { query, filters, jobId, setParams };
}
