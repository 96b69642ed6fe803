import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { Suspense } from "react";
import { DeletedNotice } from "@/components/links/detail/deleted-notice";
import { ErrorExplainer } from "@/components/links/detail/error-explainer";
import { utcText } from "@/components/links/detail/format";
import { LinkAccounts, LinkAccountsSkeleton } from "@/components/links/detail/link-accounts";
import { LinkAuditHistory, LinkAuditHistorySkeleton } from "@/components/links/detail/link-audit-history";
import { LinkFields } from "@/components/links/detail/link-fields";
import { LinkOperations } from "@/components/links/detail/link-operations";
import { LinkReconnect } from "@/components/links/detail/link-reconnect";
import { ProductStatusTable } from "@/components/links/detail/product-status-table";
import { RefreshLinkButton } from "@/components/links/refresh-buttons";
import { TransactionsDesk } from "@/components/transactions/transactions-desk";
import { Callout } from "@/components/ui/callout";
import { PageHeader } from "@/components/ui/page-header";
import { UpstreamProblem } from "@/components/upstream-problem";
import { LinkEvents } from "@/components/webhooks/link-events";
import { currentStaff } from "@/lib/auth";
import { can } from "@/lib/auth/roles";
import { getBudget, secondsUntil } from "@/lib/budget";
import { callHeadroom } from "@/lib/budget/headroom";
import { getDb } from "@/lib/db/client";
import { type StoredLink, storedLink } from "@/lib/links/stored-link";
import { logger } from "@/lib/logger";
import { parseTransactionFilters, transactionFiltersToSearchParams } from "@/lib/transactions/filters";
import { transactionHistory } from "@/lib/transactions/history";
import { transactionsPage } from "@/lib/transactions/view";
import { isUpstreamError, upstream } from "@/lib/upstream";

export const metadata: Metadata = { title: "Link" };

/** Headroom where staff act: how many corrections this link still allows this minute. */
async function CorrectionsLeft({ linkId }: { linkId: string }) {
  const keys = await callHeadroom(await getBudget(), "POST /links/{id}/transactions/{txn_id}/enrichment", { linkId });
  const tightest = keys.reduce<(typeof keys)[number] | undefined>(
    (a, b) => (!a || b.remaining < a.remaining ? b : a),
    undefined,
  );
  if (!tightest) return null;
  return (
    <p className="text-sm text-slate-600" data-testid="corrections-left">
      Corrections left this minute: <span className="font-semibold tabular-nums">{tightest.remaining}</span> of{" "}
      {tightest.key.limit}
      {tightest.remaining === 0 && tightest.nextSlotAt ? ` (next slot in ${secondsUntil(tightest.nextSlotAt)} s)` : ""}
    </p>
  );
}

/** The read model's copy; the page still works (live only) when the database cannot be read. */
async function readStoredLink(linkId: string): Promise<StoredLink | null> {
  try {
    return await storedLink((await getDb()).db, linkId);
  } catch (error) {
    logger().warn({ err: error, linkId }, "reading the link's stored copy failed");
    return null;
  }
}

/** Two failures that say the same thing (both 404, both refused by the budget): the second is not repeated. */
function sameProblem(a: unknown, b: unknown): boolean {
  if (isUpstreamError(a) && isUpstreamError(b))
    return a.kind === b.kind && a.status === b.status && a.errorCode === b.errorCode;
  return a instanceof Error && b instanceof Error && a.name === b.name && !isUpstreamError(a);
}

/**
 * A read of the link this recent counts as live, whoever made it (this view, another person's, a Refresh click, the
 * sync): views in that time share it instead of each spending a call of the link's budget (GET /links/{id} allows 15
 * a minute per link upstream, Linkdesk's share is half). Under 10 s reads as "just now".
 */
const LIVE_MS = 10_000;
const readJustNow = (readAt: number) => Date.now() - readAt < LIVE_MS;

/** The upstream's answer about the link itself (not found, deleted, forbidden, bad state): trying again changes nothing. */
const isLinkAnswer = (error: unknown) => isUpstreamError(error) && [403, 404, 410, 422].includes(error.status ?? 0);

export default async function LinkPage({
  params,
  searchParams,
}: {
  params: Promise<{ linkId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { linkId } = await params;
  const staff = await currentStaff();
  if (!staff) redirect(`/sign-in?callbackUrl=/links/${encodeURIComponent(linkId)}`);
  const view = parseTransactionFilters(await searchParams);
  const api = upstream();
  const before = await readStoredLink(linkId);
  const recent = before?.link && before.seenAt && readJustNow(before.seenAt.getTime()) ? before : null;
  // The transactions come from the link's briefly cached history: filtering and paging on the desk cost no calls. A
  // page's reads never wait for the rate budget ("view"): with no room now, the page shows Linkdesk's copy and says so.
  const [link, transactions] = await Promise.allSettled([
    recent ? Promise.resolve(recent.link!) : api.getLink(linkId, { mode: "view" }),
    transactionHistory(api).get(linkId, { mode: "view" }, before?.transactionsChangedAt?.getTime()),
  ]);
  // Read again after a live call: it writes what it returns into the read model first (deleted_seen_at included).
  const stored = recent ?? (await readStoredLink(linkId));

  // Live from either call (a transactions page carries its link too), else the read model's last copy.
  const live =
    link.status === "fulfilled"
      ? link.value
      : transactions.status === "fulfilled" && readJustNow(transactions.value.readAt)
        ? transactions.value.link
        : null;
  const liveError = live ? null : link.status === "rejected" ? (link.reason as unknown) : null;
  const shown = live ?? stored?.link ?? null;
  const audit = (
    <Suspense fallback={<LinkAuditHistorySkeleton />}>
      <LinkAuditHistory linkId={linkId} canUndo={can(staff.role, "correct")} />
    </Suspense>
  );

  if (!shown) {
    return (
      <>
        <PageHeader
          title="Link"
          description={linkId}
          actions={isLinkAnswer(liveError) ? undefined : <RefreshLinkButton linkId={linkId} />}
        />
        <div className="space-y-6">
          <UpstreamProblem error={liveError} />
          {stored ? (
            <p className="text-sm text-slate-600">
              Linkdesk has this link from the upstream&rsquo;s list
              {stored.listedAt ? ` (${utcText(stored.listedAt)})` : ""} but has not read its details yet.
            </p>
          ) : null}
          {audit}
        </div>
      </>
    );
  }

  const deleted = shown.state === "deleted" || (isUpstreamError(liveError) && liveError.status === 410);
  const canCorrect = can(staff.role, "correct");
  return (
    <>
      <PageHeader
        title={shown.institution_name}
        description={`Link ${shown.link_id}`}
        actions={<RefreshLinkButton linkId={shown.link_id} />}
      />
      <div className="space-y-6">
        {live ? (
          <p className="text-sm text-slate-600" data-testid="link-freshness">
            Read live from the upstream just now.
          </p>
        ) : (
          <div className="space-y-3">
            <UpstreamProblem error={liveError} />
            <Callout
              tone="warning"
              title={`Showing Linkdesk's copy as of ${stored?.seenAt ? utcText(stored.seenAt) : "an unknown time"}`}
              role="status"
            >
              The upstream could not be read live, so this is the link as Linkdesk last read it. It may be out of date.
            </Callout>
          </div>
        )}
        {deleted ? <DeletedNotice deletedSeenAt={stored?.deletedSeenAt} /> : null}
        <ErrorExplainer link={shown} />
        <LinkReconnect link={shown} role={staff.role} deleted={deleted} />

        <section aria-labelledby="link-fields-heading" className="space-y-2">
          <h2 id="link-fields-heading" className="text-lg font-semibold">
            Link
          </h2>
          <LinkFields link={shown} createdAt={stored?.createdAt ?? null} />
        </section>

        <section aria-labelledby="link-products-heading" className="space-y-2">
          <h2 id="link-products-heading" className="text-lg font-semibold">
            Products
          </h2>
          <ProductStatusTable products={shown.products} />
        </section>

        <LinkOperations link={shown} role={staff.role} deleted={deleted} />

        <section aria-labelledby="link-accounts-heading" className="space-y-2">
          <h2 id="link-accounts-heading" className="text-lg font-semibold">
            Accounts
          </h2>
          {/* Connecting links have no data yet, and without the accounts product the upstream refuses: say so, no call. */}
          {!shown.products.accounts ? (
            <p className="text-sm text-slate-500">The accounts product is not granted on this link.</p>
          ) : shown.state === "connecting" || shown.state === "awaiting_token_exchange" || deleted ? (
            <p className="text-sm text-slate-500">
              {deleted
                ? "The link is deleted: its accounts are no longer served."
                : "The link has no accounts until it is connected."}
            </p>
          ) : (
            <Suspense fallback={<LinkAccountsSkeleton />}>
              <LinkAccounts linkId={shown.link_id} />
            </Suspense>
          )}
        </section>

        <section aria-labelledby="link-transactions-heading">
          <div className="mb-2 flex items-baseline justify-between gap-4">
            <h2 id="link-transactions-heading" className="text-lg font-semibold">
              Transactions
            </h2>
            {canCorrect ? <CorrectionsLeft linkId={shown.link_id} /> : null}
          </div>
          {transactions.status === "rejected" ? (
            liveError && sameProblem(liveError, transactions.reason) ? (
              <p className="text-sm text-slate-600">
                Transactions could not be read either, for the same reason as above.
              </p>
            ) : (
              <UpstreamProblem error={transactions.reason} />
            )
          ) : (
            <TransactionsDesk
              linkId={shown.link_id}
              canCorrect={canCorrect}
              renderedAt={transactions.value.readAt}
              initial={{
                query: transactionFiltersToSearchParams(view.filters, view.page).toString(),
                page: {
                  ...(await transactionsPage((await getDb()).db, shown.link_id, transactions.value, view)),
                  dropped: view.dropped,
                },
              }}
            />
          )}
        </section>

        <LinkEvents linkId={shown.link_id} />
        {audit}
      </div>
    </>
  );
}
