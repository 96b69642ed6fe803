import type { NextRequest } from "next/server";
import { csvExport } from "@/lib/http/csv-export";
import { refuseUnreadableInput } from "@/lib/http/storable-input";
import { parseLinkListParams, streamLinksCsv } from "@/lib/links/query";

// The Links page's "Export CSV": every row of the filtered view in its order, the page number aside.
export async function GET(request: NextRequest) {
  const unreadable = await refuseUnreadableInput(request);
  if (unreadable) return unreadable;
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
