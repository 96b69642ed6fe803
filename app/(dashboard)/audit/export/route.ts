import { parseAuditFilters, streamAuditCsv } from "@/lib/audit/query";
import { withStaff } from "@/lib/auth/with-staff";
import { csvExport } from "@/lib/http/csv-export";

// The Audit page's "Export CSV": every row of the filtered view (a million rows stream in keyset batches).
export const GET = withStaff(
  "read",
  { signIn: "Sign in to export the audit trail.", mayNot: "read the audit trail" },
  async (request) =>
    csvExport({
      filename: "audit",
      parse: () => parseAuditFilters(request.nextUrl.searchParams),
      rows: streamAuditCsv,
    }),
);
