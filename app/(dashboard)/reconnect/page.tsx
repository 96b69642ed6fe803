import { desc, eq } from "drizzle-orm";
import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { StartCampaign } from "@/components/reconnect/start-campaign";
import { Callout } from "@/components/ui/callout";
import { NotPermitted } from "@/components/ui/not-permitted";
import { PageHeader } from "@/components/ui/page-header";
import { currentStaff } from "@/lib/auth";
import { PERMISSION_LABELS, can } from "@/lib/auth/roles";
import { getBudget } from "@/lib/budget";
import { getDb } from "@/lib/db/client";
import { jobs } from "@/lib/db/schema";
import { RECONNECT_KIND } from "@/lib/jobs/reconnect";
import { linkErrorLabel } from "@/lib/links/error-codes";
import { hasLinkFilters, linkListSearchParams, parseLinkListParams } from "@/lib/links/list-params";
import { describeLinkView } from "@/lib/links/view-words";
import {
  CAMPAIGN_SKIPS,
  type CampaignSkip,
  DEFAULT_ASKED_WITHIN_DAYS,
  campaignSummary,
  planCampaign,
} from "@/lib/reconnect/campaign";
import { previewReconnectEmail } from "@/lib/reconnect/message";
import { notConfiguredWords, reconnectSetup } from "@/lib/reconnect/setup";

export const metadata: Metadata = { title: "Reconnect campaign" };

type SearchParams = Record<string, string | string[] | undefined>;
const ASKED_CHOICES = [0, 1, 7, 30] as const;
const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

// A reconnect campaign over a links-list view (ops and up): who is asked and who is skipped, and why; the calls and
// the time within the upstream's limits; then one button. Earlier campaigns are listed below with what became of them.

export default async function ReconnectCampaignPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const staff = await currentStaff();
  const raw = await searchParams;
  const query = new URLSearchParams(
    Object.entries(raw).flatMap(([k, v]) => (typeof v === "string" ? [[k, v] as [string, string]] : [])),
  );
  if (!staff) redirect(`/sign-in?callbackUrl=${encodeURIComponent(`/reconnect?${query}`)}`);
  if (!can(staff.role, "reconnectCampaign"))
    return (
      <>
        <PageHeader title="Reconnect campaign" />
        <NotPermitted what={PERMISSION_LABELS.reconnectCampaign} />
      </>
    );

  // Absent (or not one of the choices): the default, not 0 ("never skip"), which Number(null) would make it.
  const askedParam = Number(query.get("asked") ?? Number.NaN);
  const askedWithinDays = (ASKED_CHOICES as readonly number[]).includes(askedParam)
    ? askedParam
    : DEFAULT_ASKED_WITHIN_DAYS;
  query.delete("asked");
  const { params, dropped } = parseLinkListParams(query);
  const view = linkListSearchParams(params, { page: undefined }).toString();
  const { db } = await getDb();
  const setup = reconnectSetup();
  // Opened from the sidebar, with no view: nothing is planned over the whole fleet; the page offers a view first.
  const chosen = hasLinkFilters(params);
  const [plan, earlier] = await Promise.all([
    chosen ? planCampaign(db, params, { askedWithinDays, budget: await getBudget() }) : null,
    db
      .select({ id: jobs.id, title: jobs.title, state: jobs.state, createdAt: jobs.createdAt, by: jobs.createdByEmail })
      .from(jobs)
      .where(eq(jobs.kind, RECONNECT_KIND))
      .orderBy(desc(jobs.createdAt))
      .limit(10),
  ]);
  const summaries = await Promise.all(earlier.map((j) => campaignSummary(db, j.id)));
  const skipped = plan ? (Object.keys(CAMPAIGN_SKIPS) as CampaignSkip[]).filter((k) => plan.skipped[k] > 0) : [];
  const withAsked = (days: number) => {
    const next = new URLSearchParams(view);
    next.set("asked", String(days));
    return `/reconnect?${next}`;
  };

  return (
    <>
      <PageHeader
        title="Reconnect campaign"
        description="Every link of a view whose error needs its end user gets one reconnect request: a relink session handed to the product (and emailed where configured), as a job through the rate limits."
      />
      <div className="max-w-4xl space-y-4">
        {dropped.length > 0 ? (
          <Callout tone="warning" title="Some of the view's filters were ignored">
            {dropped.map((d) => `${d.param} “${d.value}” (${d.reason})`).join("; ")}.
          </Callout>
        ) : null}
        {setup.missing.length > 0 ? (
          <Callout tone="error" title="Reconnect requests are off">
            {notConfiguredWords(setup.missing)}
          </Callout>
        ) : null}

        {plan ? (
          <>
            <section
              className="space-y-3 rounded-lg border border-slate-200 bg-white p-4"
              aria-labelledby="campaign-plan"
              data-testid="campaign-plan"
            >
              <h2 id="campaign-plan" className="text-base font-semibold text-slate-900">
                The view
              </h2>
              <p className="text-sm text-slate-700">
                <Link href={view ? `/links?${view}` : "/links"} className="text-indigo-700 underline">
                  {describeLinkView(params)}
                </Link>{" "}
                holds {count(plan.links, "link")}
                {plan.tooMany ? ", more than a campaign may ask (20,000): narrow the view first" : ""}.
              </p>
              <p className="text-sm text-slate-900" data-testid="campaign-targets">
                <span className="font-semibold">{count(plan.targets.length, "link")} to ask</span>
                {plan.targets.length > 0
                  ? ` (${count(plan.users, "end user")}): ${Object.entries(plan.byErrorCode)
                      .sort((a, b) => b[1] - a[1])
                      .map(([code, n]) => `${n.toLocaleString("en-US")} ${linkErrorLabel(code)}`)
                      .join(", ")}.`
                  : "."}
              </p>
              {plan.waiting > 0 ? (
                <p className="text-sm text-slate-700" data-testid="campaign-waiting">
                  <span className="font-semibold">{count(plan.waiting, "of them wait", "of them wait")}</span> for an
                  outage to clear (the link&apos;s own, or its institution&apos;s or provider&apos;s): each is asked
                  once it is back, if it still needs its user; a link that comes back by itself is not asked. A campaign
                  waits a week at most.
                </p>
              ) : null}
              {skipped.length > 0 ? (
                <table className="text-sm" aria-label="Links not asked" data-testid="campaign-skipped">
                  <thead className="text-left text-xs font-medium uppercase tracking-wide text-slate-600">
                    <tr>
                      <th className="py-1 pr-4">Not asked</th>
                      <th className="py-1 text-right">Links</th>
                    </tr>
                  </thead>
                  <tbody>
                    {skipped.map((k) => (
                      <tr key={k}>
                        <td className="py-0.5 pr-4 text-slate-700">{CAMPAIGN_SKIPS[k]}</td>
                        <td className="py-0.5 text-right tabular-nums">{plan.skipped[k].toLocaleString("en-US")}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              ) : null}
              <nav aria-label="Skip links asked within" className="flex flex-wrap items-center gap-2 text-sm">
                <span className="text-slate-600">Skip links asked within:</span>
                {ASKED_CHOICES.map((days) => (
                  <Link
                    key={days}
                    href={withAsked(days)}
                    aria-current={days === askedWithinDays ? "true" : undefined}
                    className={`rounded-full px-2.5 py-0.5 ring-1 ring-inset ${days === askedWithinDays ? "bg-indigo-600 text-white ring-indigo-600" : "bg-white text-slate-700 ring-slate-300 hover:bg-slate-50"}`}
                  >
                    {days === 0 ? "never skip" : count(days, "day")}
                  </Link>
                ))}
              </nav>
              {plan.targets.length > 0 ? (
                <p className="text-sm text-slate-700" data-testid="campaign-cost">
                  {count(plan.calls, "link session")} (POST /link-session, with a fresh read of each link first):{" "}
                  {plan.duration}
                  {plan.binding ? ` at ${plan.binding}` : ""}. The upstream allows 20 sessions a minute per end user,
                  1,200 per app and 12 relinks a minute per link, and 1,000 link reads a minute per app; each link is
                  asked once by this campaign, whatever the retries.
                </p>
              ) : null}
              {setup.missing.length === 0 && plan.targets.length > 0 ? (
                <StartCampaign view={view} askedWithinDays={askedWithinDays} links={plan.targets.length} />
              ) : plan.targets.length === 0 ? (
                <p className="text-sm text-slate-600">Nothing to ask: no link of this view needs its end user now.</p>
              ) : null}
            </section>

            <EmailPreview
              emails={setup.emails}
              reconnectUrl={setup.reconnectUrl}
              errorCode={Object.entries(plan.byErrorCode).sort((a, b) => b[1] - a[1])[0]?.[0] ?? "auth_expired"}
              institutionName={plan.targets[0]?.institution ?? null}
            />
          </>
        ) : (
          <section
            className="space-y-2 rounded-lg border border-slate-200 bg-white p-4"
            aria-labelledby="campaign-choose"
            data-testid="campaign-choose"
          >
            <h2 id="campaign-choose" className="text-base font-semibold text-slate-900">
              Which links?
            </h2>
            <p className="text-sm text-slate-700">
              A campaign asks the links of a view. Filter the{" "}
              <Link href="/links?who_acts=user" className="text-indigo-700 underline">
                links list
              </Link>{" "}
              (an error code, an institution, a tag) and press <em>Ask these users to reconnect…</em>, or preview{" "}
              <Link href="/reconnect?who_acts=user" className="text-indigo-700 underline">
                every link that needs its user
              </Link>
              .
            </p>
          </section>
        )}

        <section aria-labelledby="earlier-campaigns" className="space-y-2">
          <h2 id="earlier-campaigns" className="text-base font-semibold text-slate-900">
            Earlier campaigns
          </h2>
          {earlier.length === 0 ? (
            <p className="text-sm text-slate-600">None yet.</p>
          ) : (
            <table
              className="min-w-full divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white text-sm"
              aria-label="Earlier campaigns"
            >
              <thead className="bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-600">
                <tr>
                  <th className="px-3 py-2">Campaign</th>
                  <th className="px-3 py-2 text-right">Asked</th>
                  <th className="px-3 py-2 text-right">Delivered</th>
                  <th className="px-3 py-2 text-right">Reconnected</th>
                  <th className="px-3 py-2 text-right">Still broken</th>
                  <th className="px-3 py-2 text-right">Waiting for an outage</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {earlier.map((job, i) => {
                  const s = summaries[i]!;
                  return (
                    <tr key={job.id} data-testid="earlier-campaign">
                      <td className="px-3 py-2">
                        <Link href={`/jobs/${job.id}`} className="text-indigo-700 underline">
                          {job.title}
                        </Link>
                        <span className="block text-xs text-slate-600">
                          {job.by} · {job.createdAt.toISOString().slice(0, 16).replace("T", " ")} UTC · {job.state}
                        </span>
                      </td>
                      <td className="px-3 py-2 text-right tabular-nums">{s.sent.toLocaleString("en-US")}</td>
                      <td className="px-3 py-2 text-right tabular-nums">{s.delivered.toLocaleString("en-US")}</td>
                      <td className="px-3 py-2 text-right tabular-nums">{s.reconnected.toLocaleString("en-US")}</td>
                      <td className="px-3 py-2 text-right tabular-nums">{s.stillBroken.toLocaleString("en-US")}</td>
                      <td className="px-3 py-2 text-right tabular-nums">{s.waiting.toLocaleString("en-US")}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </section>
      </div>
    </>
  );
}

/**
 * What the end user reads by email, for the most common reason of the view (the product's own message is its to
 * word). Each email carries its own session's token where this one shows TOKEN.
 */
function EmailPreview({
  emails,
  reconnectUrl,
  errorCode,
  institutionName,
}: {
  emails: boolean;
  reconnectUrl: string | null;
  errorCode: string;
  institutionName: string | null;
}) {
  return (
    <section
      aria-labelledby="email-preview"
      className="space-y-2 rounded-lg border border-slate-200 bg-white p-4"
      data-testid="email-preview"
    >
      <h2 id="email-preview" className="text-base font-semibold text-slate-900">
        The email
      </h2>
      {emails && reconnectUrl ? (
        <>
          <p className="text-sm text-slate-700">
            Sent besides the product&apos;s message to each end user whose address Linkdesk knows (from an import&apos;s
            file). For {linkErrorLabel(errorCode)}
            {institutionName ? ` at ${institutionName}` : ""}, it reads:
          </p>
          <div className="rounded-md border border-slate-200 bg-slate-50 p-3 text-sm">
            <p className="font-medium text-slate-900">
              Subject: {preview(errorCode, institutionName, reconnectUrl).subject}
            </p>
            <pre className="mt-2 whitespace-pre-wrap break-words font-sans text-slate-800">
              {preview(errorCode, institutionName, reconnectUrl).text}
            </pre>
          </div>
          <p className="text-xs text-slate-600">
            TOKEN stands for each request&apos;s own link session token. No credential of Linkdesk&apos;s is in it.
          </p>
        </>
      ) : (
        <p className="text-sm text-slate-700">
          Email is off on this Linkdesk: only the product&apos;s back end is told, and it reaches its users its own way.
          An administrator turns email on with SMTP_URL, SMTP_FROM and PRODUCT_RECONNECT_URL (docs/reconnect.md).
        </p>
      )}
    </section>
  );
}

function preview(errorCode: string, institutionName: string | null, reconnectUrl: string) {
  return previewReconnectEmail({ errorCode, institutionName, reconnectUrl });
}
