"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";

/** One query client for the dashboard: every poll and mutation in the browser goes through it. */
export function QueryProvider({ children }: { children: React.ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          // Pages arrive rendered by the server: data handed over as initialData is fresh for a moment.
          queries: { staleTime: 1_000, refetchOnWindowFocus: true, retry: 2 },
        },
      }),
  );
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
