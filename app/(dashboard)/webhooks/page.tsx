import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { DataTableEmpty } from "@/components/data-table/data-table-states";
import { IgnoredWebhookFilters, WebhooksFilters } from "@/components/webhooks/webhooks-filters";
import { KeysetPagination } from "@/components/data-table/keyset-pagination";
import { WebhooksSummary } from "@/components/webhooks/webhooks-summary";
import { WebhooksTable } from "@/components/webhooks/webhooks-table";
import { Callout } from "@/components/ui/callout";
import { PageHeader } from "@/components/ui/page-header";
import { currentStaff } from "@/lib/auth";
import { can, PERMISSION_LABELS, ROLE_LABELS } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import {
  listWebhookEvents,
  parseWebhookFilters,
  webhookFiltersToSearchParams,
  webhookSummary,
} from "@/lib/webhooks/query";

export const metadata: Metadata = { title: "Webhooks" };

type SearchParams = Record<string, string | string[] | undefined>;

const TITLE = "Webhooks";
const DESCRIPTION =
  "Every request to Linkdesk's webhook receiver: verified events and how processing went, refused requests and why. Newest first.";

export default async function WebhooksPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const staff = await currentStaff();
  if (!staff) redirect("/sign-in?callbackUrl=/webhooks");
  if (!can(staff.role, "read")) {
    return (
      <>
        <PageHeader title={TITLE} />
        <Callout tone="error" title="You may not see the webhooks">
          Your role ({ROLE_LABELS[staff.role]}) may not {PERMISSION_LABELS.read}. Ask an admin if you need it.
        </Callout>
      </>
    );
  }

  const params = await searchParams;
  // The filter form sends every field, blank or not; drop the blanks so the address stays short enough to share.
  const trimmed = withoutBlankParams(params);
  if (trimmed) redirect(trimmed.size > 0 ? `/webhooks?${trimmed}` : "/webhooks");

  // One clock for the filters' spans, the summary and every relative time on the page.
  const now = new Date();
  const { filters, dropped } = parseWebhookFilters(params, now);
  const { db } = await getDb();
  const [{ rows, nextCursor }, summary] = await Promise.all([
    listWebhookEvents(db, filters),
    webhookSummary(db, { now }),
  ]);

  const view = webhookFiltersToSearchParams(filters);
  const viewHref = view.size > 0 ? `/webhooks?${view}` : "/webhooks";
  const exportHref = view.size > 0 ? `/webhooks/export?${view}` : "/webhooks/export";
  const query = webhookFiltersToSearchParams(filters, filters.cursor).toString();

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
      <WebhooksSummary summary={summary} renderedAt={now.getTime()} />
      {/* Keyed by the view so fields chosen but not applied reset when the view changes (Clear, a shared link). */}
      <WebhooksFilters key={viewHref} filters={filters} />
      <IgnoredWebhookFilters dropped={dropped} />
      {rows.length > 0 ? (
        <WebhooksTable
          rows={rows}
          renderedAt={now.getTime()}
          canReprocess={can(staff.role, "reprocessWebhook")}
          view={{ pathname: "/webhooks", query }}
        />
      ) : filters.cursor ? (
        <DataTableEmpty title="No older requests">
          <p>This view has nothing after that point. Go back to the first page.</p>
        </DataTableEmpty>
      ) : view.size > 0 ? (
        <DataTableEmpty title="No requests match these filters">
          <p>Widen the time or clear a filter.</p>
        </DataTableEmpty>
      ) : (
        <DataTableEmpty title="No webhook received yet">
          <p>
            The upstream sends a link&apos;s events to the webhook address set on the link. Requests to Linkdesk&apos;s
            receiver appear here, verified or refused, as soon as they arrive.
          </p>
        </DataTableEmpty>
      )}
      {rows.length > 0 || filters.cursor ? (
        <KeysetPagination
          label="Webhook event pages"
          noun={{ one: "request", other: "requests" }}
          shown={rows.length}
          firstHref={filters.cursor ? viewHref : null}
          nextHref={nextCursor ? `/webhooks?${webhookFiltersToSearchParams(filters, nextCursor)}` : null}
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
