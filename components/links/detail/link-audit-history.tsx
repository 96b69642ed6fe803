import Link from "next/link";
import { AuditTable } from "@/components/audit/audit-table";
import { undoCorrectionControl } from "@/components/transactions/audit-undo";
import { listAudit } from "@/lib/audit/query";
import { getDb } from "@/lib/db/client";

/** How many of the link's audit entries the link page shows; the Audit page has the rest. */
export const LINK_AUDIT_ROWS = 20;

/** The newest audit entries about one link (audit_log_link_id_at_id_idx), with the way to all of them. */
export async function LinkAuditHistory({ linkId, canUndo = false }: { linkId: string; canUndo?: boolean }) {
  const { db } = await getDb();
  const { rows, nextCursor } = await listAudit(db, { link: linkId }, { limit: LINK_AUDIT_ROWS });
  const allHref = `/audit?${new URLSearchParams({ link: linkId })}`;
  return (
    <section aria-labelledby="link-audit-heading" className="space-y-2">
      <div className="flex items-baseline justify-between gap-4">
        <h2 id="link-audit-heading" className="text-lg font-semibold">
          Audit history
        </h2>
        <Link href={allHref} className="text-sm text-indigo-700 hover:underline">
          {nextCursor ? "All entries in the audit trail" : "Open in the audit trail"}
        </Link>
      </div>
      {rows.length > 0 ? (
        <>
          <AuditTable rows={rows} rowAction={canUndo ? undoCorrectionControl : undefined} />
          {nextCursor ? (
            <p className="text-xs text-slate-500">
              The newest {LINK_AUDIT_ROWS} entries; older ones are in the audit trail.
            </p>
          ) : null}
        </>
      ) : (
        <p className="rounded-lg border border-dashed border-slate-300 bg-white px-4 py-4 text-sm text-slate-600">
          Nothing recorded for this link yet: corrections and imports made through Linkdesk appear here.
        </p>
      )}
    </section>
  );
}

export function LinkAuditHistorySkeleton() {
  return (
    <div aria-busy="true" aria-label="Loading the link's audit history" className="animate-pulse space-y-2">
      <div className="h-6 w-40 rounded bg-slate-200" />
      <div className="h-32 rounded-lg bg-slate-200" />
    </div>
  );
}
