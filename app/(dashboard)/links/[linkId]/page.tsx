import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { TransactionsTable } from "@/components/transactions/transactions-table";
import { PageHeader } from "@/components/ui/page-header";
import { UpstreamProblem } from "@/components/upstream-problem";
import { currentStaff } from "@/lib/auth";
import { can } from "@/lib/auth/roles";
import { getBudget, secondsUntil } from "@/lib/budget";
import { callHeadroom } from "@/lib/budget/headroom";
import { upstream } from "@/lib/upstream";

export const metadata: Metadata = { title: "Link" };

const PAGE_SIZE = 50;

/** Headroom where staff act: how many corrections this link still allows this minute. */
async function CorrectionsLeft({ linkId }: { linkId: string }) {
  const keys = await callHeadroom(await getBudget(), "POST /links/{id}/transactions/{txn_id}/enrichment", { linkId });
  const tightest = keys.reduce<(typeof keys)[number] | undefined>((a, b) => (!a || b.remaining < a.remaining ? b : a), undefined);
  if (!tightest) return null;
  return (
    <p className="text-sm text-slate-600" data-testid="corrections-left">
      Corrections left this minute: <span className="font-semibold tabular-nums">{tightest.remaining}</span> of {tightest.key.limit}
      {tightest.remaining === 0 && tightest.nextSlotAt
        ? ` (next slot in ${secondsUntil(tightest.nextSlotAt)} s)`
        : ""}
    </p>
  );
}

export default async function LinkPage({
  params,
  searchParams,
}: {
  params: Promise<{ linkId: string }>;
  searchParams: Promise<{ page?: string }>;
}) {
  const { linkId } = await params;
  const staff = await currentStaff();
  if (!staff) redirect(`/sign-in?callbackUrl=/links/${encodeURIComponent(linkId)}`);
  const page = Math.max(1, Number.parseInt((await searchParams).page ?? "1", 10) || 1);
  const api = upstream();
  const [link, transactions] = await Promise.allSettled([api.getLink(linkId), api.getTransactions(linkId, { page, size: PAGE_SIZE })]);

  if (link.status === "rejected") {
    return (
      <>
        <PageHeader title="Link" description={linkId} />
        <UpstreamProblem error={link.reason} />
      </>
    );
  }
  const l = link.value;
  return (
    <>
      <PageHeader title={l.institution_name} description={`Link ${l.link_id}`} />
      <dl className="mb-6 grid max-w-3xl grid-cols-[10rem_1fr] gap-x-4 gap-y-1 rounded-lg border border-slate-200 bg-white px-4 py-3 text-sm">
        <dt className="text-slate-500">State</dt>
        <dd data-testid="link-state">{l.state}</dd>
        <dt className="text-slate-500">Error code</dt>
        <dd>{l.error_code ?? "none"}</dd>
        <dt className="text-slate-500">Provider</dt>
        <dd>{l.provider}</dd>
        <dt className="text-slate-500">Tags</dt>
        <dd>{l.link_tags?.length ? l.link_tags.join(", ") : "none"}</dd>
      </dl>
      <div className="mb-2 flex items-baseline justify-between gap-4">
        <h2 className="text-lg font-semibold">Transactions</h2>
        {can(staff.role, "correct") ? <CorrectionsLeft linkId={l.link_id} /> : null}
      </div>
      {transactions.status === "rejected" ? (
        <UpstreamProblem error={transactions.reason} />
      ) : (
        <TransactionsTable
          linkId={l.link_id}
          transactions={transactions.value.transactions}
          canCorrect={can(staff.role, "correct")}
          page={page}
          total={transactions.value.total}
          size={PAGE_SIZE}
        />
      )}
    </>
  );
}
