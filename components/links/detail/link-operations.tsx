import { Suspense } from "react";
import { Callout } from "@/components/ui/callout";
import { type Role, can } from "@/lib/auth/roles";
import { type RefreshOffer, refreshOffers } from "@/lib/links/operations";
import { logger } from "@/lib/logger";
import { updateLinkDefaults } from "@/lib/schemas/link-operations";
import type { LinkDetails } from "@/lib/links/types";
import { LinkSettingsForm } from "./link-settings-form";
import { ProductRefreshList } from "./product-refresh-list";
import { TestWebhookForm } from "./test-webhook-form";

// The link page's operations for support and up (operateLink): its tags and webhook, a test webhook, product
// refreshes. A role without the permission sees none of it, as the server would refuse it anyway.

/** When each product may be refreshed needs the rate budget: read apart, so the rest of the page does not wait. */
async function ProductRefresh({ link }: { link: LinkDetails }) {
  let offers: RefreshOffer[];
  try {
    offers = await refreshOffers(link);
  } catch (error) {
    logger().warn({ err: error, linkId: link.link_id }, "reading the product refresh schedule failed");
    return (
      <Callout tone="warning" title="Product refreshes are not offered right now">
        Linkdesk could not read its rate budget, so it cannot tell when each product may be refreshed. Reload the page
        in a moment.
      </Callout>
    );
  }
  return <ProductRefreshList linkId={link.link_id} offers={offers} />;
}

export function LinkOperations({ link, role, deleted }: { link: LinkDetails; role: Role; deleted: boolean }) {
  if (!can(role, "operateLink")) return null;
  return (
    <section aria-labelledby="link-operations-heading" className="space-y-2" data-testid="link-operations">
      <h2 id="link-operations-heading" className="text-lg font-semibold">
        Operations
      </h2>
      {deleted ? (
        <p className="text-sm text-slate-500">
          The link is deleted: its tags and webhook can no longer be changed, nor its products refreshed.
        </p>
      ) : (
        <>
          <p className="text-sm text-slate-600">
            Each goes to the upstream at once, spends this link&rsquo;s share of its rate limits and is recorded in the
            audit trail.
          </p>
          <div className="grid gap-4 xl:grid-cols-2">
            <LinkSettingsForm defaults={updateLinkDefaults(link)} />
            <div className="space-y-4">
              <TestWebhookForm linkId={link.link_id} webhook={link.webhook ?? null} />
              <Suspense
                fallback={
                  <div
                    className="h-40 animate-pulse rounded-lg border border-slate-200 bg-slate-50"
                    aria-hidden="true"
                  />
                }
              >
                <ProductRefresh link={link} />
              </Suspense>
            </div>
          </div>
        </>
      )}
    </section>
  );
}
