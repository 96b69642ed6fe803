import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AuditFilterForm, IgnoredFilters } from "@/components/audit/audit-filters";
import { KeysetPagination } from "@/components/data-table/keyset-pagination";
import { AuditEmpty, AuditTable } from "@/components/audit/audit-table";
import { undoCorrectionControl } from "@/components/transactions/audit-undo";
import { Callout } from "@/components/ui/callout";
import { PageHeader } from "@/components/ui/page-header";
import { auditFiltersToSearchParams, listAudit, parseAuditFilters } from "@/lib/audit/query";
import { currentStaff } from "@/lib/auth";
import { can, PERMISSION_LABELS, ROLE_LABELS } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";

export const metadata: Metadata = { title: "Audit" };

type SearchParams = Record<string, string | string[] | undefined>;

const TITLE = "Audit trail";
const DESCRIPTION = "Who changed what, when, and what the upstream answered. Newest first; times in UTC.";

export default async function AuditPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const staff = await currentStaff();
  if (!staff) redirect("/sign-in?callbackUrl=/audit");
  if (!can(staff.role, "read")) {
    return (
      <>
        <PageHeader title={TITLE} />
        <Callout tone="error" title="You may not see the audit trail">
          Your role ({ROLE_LABELS[staff.role]}) may not {PERMISSION_LABELS.read}. Ask an admin if you need it.
        </Callout>
      </>
    );
  }

  const params = await searchParams;
  // The filter form sends every field, blank or not; drop the blanks so the address stays short enough to share.
  const trimmed = withoutBlankParams(params);
  if (trimmed) redirect(trimmed.size > 0 ? `/audit?${trimmed}` : "/audit");

  const { filters, dropped } = parseAuditFilters(params);
  const { db } = await getDb();
  const { rows, nextCursor } = await listAudit(db, filters);

  const view = auditFiltersToSearchParams(filters);
  const viewHref = view.size > 0 ? `/audit?${view}` : "/audit";
  const exportHref = view.size > 0 ? `/audit/export?${view}` : "/audit/export";
  const filtered = view.size > 0;

  return (
    <>
      <PageHeader
        title={TITLE}
        description={DESCRIPTION}
        actions={
          // A plain anchor: the export is a file download from a route handler, not a page to navigate to.
          <a
            href={exportHref}
            download
            className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50"
          >
            Export CSV
          </a>
        }
      />
      {/* Keyed by the view so fields typed but not applied reset when the view changes (Clear, a shared link). */}
      <AuditFilterForm key={viewHref} filters={filters} />
      <IgnoredFilters dropped={dropped} />
      {rows.length > 0 ? (
        <AuditTable rows={rows} rowAction={can(staff.role, "correct") ? undoCorrectionControl : undefined} />
      ) : (
        <AuditEmpty filtered={filtered} paged={filters.cursor !== undefined} />
      )}
      {rows.length > 0 || filters.cursor ? (
        <KeysetPagination
          label="Audit pages"
          noun={{ one: "entry", other: "entries" }}
          shown={rows.length}
          firstHref={filters.cursor ? viewHref : null}
          nextHref={nextCursor ? `/audit?${auditFiltersToSearchParams(filters, nextCursor)}` : null}
        />
      ) : null}
    </>
  );
}

/** The parameters without blank values, or null when there were none to drop. */
function withoutBlankParams(params: SearchParams): URLSearchParams | null {
  let blank = false;
  const kept = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      if (one.trim() === "") blank = true;
      else kept.append(key, one);
    }
  }
  return blank ? kept : null;
}
