import type { NextRequest } from "next/server";
import { csvExport } from "@/lib/http/csv-export";
import { parseLinkListParams, streamLinksCsv } from "@/lib/links/query";

// The Links page's "Export CSV": every row of the filtered view in its order, the page number aside.
export function GET(request: NextRequest) {
  return csvExport({
    what: "the links",
    filename: "links",
    parse: () => {
      const { params, dropped } = parseLinkListParams(request.nextUrl.searchParams);
      return { filters: params, dropped };
    },
    rows: (db, params) => streamLinksCsv(db, params),
  });
}
