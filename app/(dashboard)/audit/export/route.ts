import type { NextRequest } from "next/server";
import { parseAuditFilters, streamAuditCsv } from "@/lib/audit/query";
import { csvExport } from "@/lib/http/csv-export";
import { refuseUnreadableInput } from "@/lib/http/storable-input";

// The Audit page's "Export CSV": every row of the filtered view (a million rows stream in keyset batches).
export async function GET(request: NextRequest) {
  const unreadable = await refuseUnreadableInput(request);
  if (unreadable) return unreadable;
  return csvExport({
    what: "the audit trail",
    filename: "audit",
    parse: () => parseAuditFilters(request.nextUrl.searchParams),
    rows: streamAuditCsv,
  });
}
