import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { RegisterLinkIdsForm } from "@/components/links/register-link-ids-form";
import { Callout } from "@/components/ui/callout";
import { PageHeader } from "@/components/ui/page-header";
import { currentStaff } from "@/lib/auth";
import { ROLE_LABELS, can } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import { getEnv } from "@/lib/env";
import { countLinksBySource } from "@/lib/links/discovery";
import { LINK_SOURCE_LABELS, LINK_SOURCE_ORDER } from "@/lib/links/link-sources";

export const metadata: Metadata = { title: "Register links" };

// Admins register link ids the product's back end knows: the upstream's list of links holds active links only, so a
// link whose first connection failed or an import without credentials reaches Linkdesk only this way (or by a
// customer lookup, a webhook). The back end does the same through POST /api/links/register (docs/discovery.md).
export default async function RegisterLinksPage() {
  const me = await currentStaff();
  if (!me) redirect("/sign-in?callbackUrl=/admin/link-ids");
  if (!can(me.role, "registerLinks")) {
    return (
      <Callout tone="error" title="Only admins register link ids">
        You are signed in as {ROLE_LABELS[me.role]}. To find one customer&apos;s links, look the customer up on the
        Links page.
      </Callout>
    );
  }

  const { db } = await getDb();
  const bySource = await countLinksBySource(db);
  const serviceOn = Boolean(getEnv().LINKDESK_SERVICE_TOKEN);
  return (
    <>
      <PageHeader
        title="Register links"
        description="Link ids the product's back end knows, so Linkdesk lists every link, not only the ones the upstream lists (connected ones)."
      />
      <div className="max-w-3xl space-y-6">
        <RegisterLinkIdsForm />
        <section
          aria-labelledby="sources-heading"
          className="space-y-2 rounded-lg border border-slate-200 bg-white p-4 text-sm text-slate-700"
        >
          <h2 id="sources-heading" className="text-base font-semibold text-slate-900">
            Where Linkdesk learned of its links
          </h2>
          <dl className="grid grid-cols-[12rem_1fr] gap-x-3 gap-y-0.5" data-testid="links-by-source">
            {LINK_SOURCE_ORDER.map((source) => (
              <div key={source} className="contents">
                <dt>{LINK_SOURCE_LABELS[source]}</dt>
                <dd className="tabular-nums">{(bySource[source] ?? 0).toLocaleString("en")}</dd>
              </div>
            ))}
          </dl>
        </section>
        <section
          aria-labelledby="service-heading"
          className="space-y-2 rounded-lg border border-slate-200 bg-white p-4 text-sm text-slate-700"
        >
          <h2 id="service-heading" className="text-base font-semibold text-slate-900">
            The back end&apos;s endpoint
          </h2>
          <p>
            The product&apos;s back end registers ids itself with{" "}
            <span className="font-mono">POST /api/links/register</span>, body{" "}
            <span className="font-mono">{'{"link_ids": [...]}'}</span> (up to 10,000 ids a call), authorised by{" "}
            <span className="font-mono">Authorization: Bearer &lt;LINKDESK_SERVICE_TOKEN&gt;</span>. Each call is in the
            audit trail as <span className="font-mono">service:back-end</span>.
          </p>
          <p data-testid="service-endpoint-state">
            {serviceOn
              ? "On: this instance has a service token (LINKDESK_SERVICE_TOKEN)."
              : "Off: LINKDESK_SERVICE_TOKEN is not set on this instance, so the endpoint refuses every call."}
          </p>
        </section>
      </div>
    </>
  );
}
