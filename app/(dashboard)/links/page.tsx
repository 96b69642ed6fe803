import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { DataTablePagination } from "@/components/data-table/data-table-pagination";
import { DataTableEmpty, DataTableToolbarSkeleton } from "@/components/data-table/data-table-states";
import { RelativeTime } from "@/components/data-table/relative-time";
import { CustomerLookup } from "@/components/links/list/customer-lookup";
import { IgnoredLinkParams, LinksFilterBar } from "@/components/links/list/links-filters";
import { LinksTable } from "@/components/links/list/links-table";
import { sharedLinkTablePage } from "@/components/links/list/rows";
import { SyncStatusLine } from "@/components/links/sync-status";
import { AtHand } from "@/components/ui/at-hand";
import { Callout } from "@/components/ui/callout";
import { PageHeader } from "@/components/ui/page-header";
import { currentStaff } from "@/lib/auth";
import { can, PERMISSION_LABELS, ROLE_LABELS } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import { cachedFacetOptions } from "@/lib/links/list-facets";
import { hasLinkFilters, linkListSearchParams, parseLinkListParams } from "@/lib/links/list-params";
import { cachedLinkPage } from "@/lib/links/list-query";
import { cachedReadModelSummary } from "@/lib/links/read-model-summary";
import { cachedTableView } from "@/lib/preferences/table-views";
import { cachedSyncStatus } from "@/lib/sync/status";

export const metadata: Metadata = { title: "Links" };

type SearchParams = Record<string, string | string[] | undefined>;

const TITLE = "Links";
const DESCRIPTION = "Every bank connection with its state and error codes, from Linkdesk's read model of the upstream.";

// Everyone reads the list (every role holds `read`). Filters, sort and page are the URL, so a view can be shared,
// reloaded and linked to from Health; the rows are read on the server and the table in the browser only renders links.
export default async function LinksPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const raw = await searchParams;
  // The "Open a link by id" box: straight to the detail page.
  const id = typeof raw.id === "string" ? raw.id.trim() : "";
  if (id) redirect(`/links/${encodeURIComponent(id)}`);

  const staff = await currentStaff();
  if (!staff) redirect(`/sign-in?callbackUrl=${encodeURIComponent("/links")}`);
  if (!can(staff.role, "read")) {
    return (
      <>
        <PageHeader title={TITLE} />
        <Callout tone="error" title="You may not see the links">
          Your role ({ROLE_LABELS[staff.role]}) may not {PERMISSION_LABELS.read}. Ask an admin if you need it.
        </Callout>
      </>
    );
  }

  // The filter form sends every field, blank or not; drop the blanks so the address stays short enough to share.
  const trimmed = withoutBlankParams(raw);
  if (trimmed) redirect(trimmed.size > 0 ? `/links?${trimmed}` : "/links");

  const { params, dropped } = parseLinkListParams(raw);
  const { db } = await getDb();
  // Started now; when they are not at hand yet, the filter bar waits for them in its own Suspense boundary: a cold
  // cache must not hold up the rows. Everything else is one render: each read is kept a few seconds and shared.
  const facets = cachedFacetOptions(db);
  const [list, readModel, tableView, syncStatus] = await Promise.all([
    cachedLinkPage(db, params),
    cachedReadModelSummary(db),
    cachedTableView(db, staff.id, "links"),
    cachedSyncStatus(db),
  ]);
  const { asOf } = readModel;
  // One clock for every relative time on the page, the server's, so the HTML and the hydrated table agree.
  const renderedAt = list.readAt.getTime();

  const view = { pathname: "/links", query: linkListSearchParams(params).toString() };
  const exportQuery = linkListSearchParams(params, { page: undefined }).toString();
  const filtered = hasLinkFilters(params);

  return (
    <>
      <PageHeader
        title={TITLE}
        description={DESCRIPTION}
        actions={
          <>
            {/* A campaign over this view: a preview of who is asked first, nothing sent from here. */}
            {can(staff.role, "reconnectCampaign") ? (
              <Link
                href={exportQuery ? `/reconnect?${exportQuery}` : "/reconnect"}
                className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50"
              >
                Ask these users to reconnect…
              </Link>
            ) : null}
            {/* A plain anchor: the export is a file download from a route handler, not a page to navigate to. */}
            <a
              href={exportQuery ? `/links/export?${exportQuery}` : "/links/export"}
              download
              className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50"
            >
              Export CSV
            </a>
          </>
        }
      />
      <div className="mb-4 flex flex-wrap items-start justify-between gap-4">
        <div className="flex w-full max-w-xl flex-col gap-2">
          <OpenById />
          {/* The upstream's list of links leaves broken ones out: support finds them by the customer (docs/discovery.md). */}
          {can(staff.role, "lookupCustomer") ? <CustomerLookup /> : null}
        </div>
        <div className="space-y-1 text-sm text-slate-600" data-testid="links-freshness">
          <p>
            {asOf ? (
              <>
                Data as of <RelativeTime value={asOf.toISOString()} now={renderedAt} /> (newest link read)
              </>
            ) : (
              "No link read yet"
            )}
          </p>
          <SyncStatusLine status={syncStatus} readModel={readModel} />
        </div>
      </div>
      <AtHand
        key={view.query}
        value={cachedFacetOptions.peek(db)}
        load={() => facets}
        fallback={<DataTableToolbarSkeleton fields={8} />}
      >
        {(read) => <LinksFilterBar params={params} facets={read} />}
      </AtHand>
      <IgnoredLinkParams dropped={dropped} />
      {params.campaign ? (
        <p className="mb-3 text-sm text-slate-700" data-testid="campaign-filter">
          Only the links{" "}
          <Link href={`/jobs/${params.campaign}`} className="text-sky-700 underline">
            this reconnect campaign
          </Link>{" "}
          asked that are not back yet.{" "}
          <Link
            href={`/links?${linkListSearchParams(params, { campaign: undefined, page: undefined })}`}
            className="text-sky-700 underline"
          >
            Show them all
          </Link>
        </p>
      ) : null}
      {list.rows.length > 0 ? (
        <>
          <LinksTable
            page={sharedLinkTablePage(list.rows)}
            sort={{ id: list.sort, dir: list.dir }}
            view={view}
            renderedAt={renderedAt}
            tableView={tableView}
          />
          <DataTablePagination
            view={view}
            page={list.page}
            pageCount={list.pageCount}
            total={list.total}
            pageSize={list.pageSize}
            noun={{ one: "link", other: "links" }}
          />
        </>
      ) : list.total > 0 ? (
        <DataTableEmpty title={`Page ${list.page.toLocaleString("en")} is past the end`}>
          <p>
            This view has {list.total.toLocaleString("en")} links on {list.pageCount.toLocaleString("en")}{" "}
            {list.pageCount === 1 ? "page" : "pages"}.{" "}
            <Link
              href={`/links?${linkListSearchParams(params, { page: list.pageCount })}`}
              className="text-indigo-700 underline"
            >
              Go to the last page
            </Link>
            .
          </p>
        </DataTableEmpty>
      ) : filtered ? (
        <DataTableEmpty title="No links match these filters">
          <p>Clear a filter or widen the search. The search matches the start of a link id, or a whole tag.</p>
        </DataTableEmpty>
      ) : (
        <DataTableEmpty title="The read model is empty">
          <p>
            Linkdesk lists links from its own copy of the upstream&apos;s links, and has not read any yet. A sync fills
            it: it walks the upstream&apos;s list of links (active ones only) and reads each one within the rate budget,
            newest and failing links first. Its progress shows above. Links the list leaves out (in error, never
            connected) come from the product&apos;s back end, which registers the ids it knows, from webhooks and from
            customer lookups.
          </p>
          <p>Meanwhile, open a link by its id.</p>
        </DataTableEmpty>
      )}
    </>
  );
}

/** Staff open a link by its id from a ticket, a log line or the upstream: a GET form that the page redirects. */
function OpenById() {
  return (
    <form method="GET" action="/links" className="flex w-full items-center gap-2">
      <label htmlFor="link-id" className="shrink-0 text-sm font-medium text-slate-700">
        Open a link by id
      </label>
      <input
        id="link-id"
        name="id"
        required
        placeholder="mk_eqkWN34UEoa2NxyALG8pcV"
        className="block min-w-0 flex-1 rounded-md border border-slate-300 bg-white px-2.5 py-1.5 font-mono text-sm"
      />
      <button
        type="submit"
        className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700"
      >
        Open
      </button>
    </form>
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
