import type { NextRequest } from "next/server";
import { parseAuditFilters, streamAuditCsv } from "@/lib/audit/query";
import { csvExport } from "@/lib/http/csv-export";

// The Audit page's "Export CSV": every row of the filtered view (a million rows stream in keyset batches).
export function GET(request: NextRequest) {
  return csvExport({
    what: "the audit trail",
    filename: "audit",
    parse: () => parseAuditFilters(request.nextUrl.searchParams),
    rows: streamAuditCsv,
  });
}
