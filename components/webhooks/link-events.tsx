import Link from "next/link";
import { Suspense } from "react";
import { RelativeTime } from "@/components/data-table/relative-time";
import { ScrollTable } from "@/components/ui/scroll-table";
import { getDb } from "@/lib/db/client";
import { logger } from "@/lib/logger";
import { type LinkEvent, listLinkEvents } from "@/lib/webhooks/query";
import { KindCell, OutcomeCell } from "./cells";

/** How many of a link's webhook events its page shows; the Webhooks page, filtered by the link, has the rest. */
export const LINK_EVENT_ROWS = 10;

/** A link's recent webhook events on its page, in a Suspense boundary of their own: the rest of the page never waits. */
export function LinkEvents({ linkId }: { linkId: string }) {
  return (
    <Suspense fallback={<LinkEventsSkeleton />}>
      <LinkEventsList linkId={linkId} />
    </Suspense>
  );
}

/** The link's newest events (one more than shown: are there older ones?) and when they were read; null when unreadable. */
async function readLinkEvents(linkId: string): Promise<{ events: LinkEvent[] | null; readAt: number }> {
  try {
    const events = await listLinkEvents((await getDb()).db, linkId, LINK_EVENT_ROWS + 1);
    return { events, readAt: Date.now() };
  } catch (error) {
    logger().warn({ err: error, linkId }, "reading the link's webhook events failed");
    return { events: null, readAt: Date.now() };
  }
}

async function LinkEventsList({ linkId }: { linkId: string }) {
  const { events, readAt: renderedAt } = await readLinkEvents(linkId);
  const allHref = `/webhooks?${new URLSearchParams({ link: linkId })}`;
  const shown = events?.slice(0, LINK_EVENT_ROWS) ?? [];
  return (
    <section aria-labelledby="link-webhooks-heading" className="space-y-2">
      <div className="flex items-baseline justify-between gap-4">
        <h2 id="link-webhooks-heading" className="text-lg font-semibold">
          Webhook events
        </h2>
        <Link href={allHref} className="text-sm text-indigo-700 hover:underline">
          {events && events.length > LINK_EVENT_ROWS ? "All of this link's events" : "Open in Webhooks"}
        </Link>
      </div>
      {events === null ? (
        <p className="rounded-lg border border-dashed border-slate-300 bg-white px-4 py-4 text-sm text-slate-600">
          The link&apos;s webhook events could not be read just now.
        </p>
      ) : shown.length > 0 ? (
        <ScrollTable>
          <table
            className="data-table min-w-full text-left text-sm"
            aria-label="Webhook events of this link"
            data-density="compact"
          >
            <thead className="border-b border-slate-200 bg-slate-50 text-xs font-medium uppercase tracking-wide text-slate-500">
              <tr>
                {["Kind", "Received", "Outcome", "What it did"].map((name) => (
                  <th key={name} scope="col" className="whitespace-nowrap px-2 py-2">
                    {name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.map((event) => (
                <tr key={event.id}>
                  <td>
                    <KindCell event={event.event} />
                  </td>
                  <td>
                    <RelativeTime value={event.receivedAt.getTime()} now={renderedAt} />
                  </td>
                  <td>
                    <OutcomeCell outcome={event.outcome} detail={event.detail} />
                  </td>
                  <td className="max-w-md truncate text-slate-700" title={event.detail ?? undefined}>
                    {event.detail ?? "—"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : (
        <p className="rounded-lg border border-dashed border-slate-300 bg-white px-4 py-4 text-sm text-slate-600">
          No webhook event received for this link yet. The upstream sends them to the webhook address set on the link.
        </p>
      )}
      {events && events.length > LINK_EVENT_ROWS ? (
        <p className="text-xs text-slate-500">The newest {LINK_EVENT_ROWS}; older ones are on the Webhooks page.</p>
      ) : null}
    </section>
  );
}

export function LinkEventsSkeleton() {
  return (
    <div aria-busy="true" aria-label="Loading the link's webhook events" className="animate-pulse space-y-2">
      <div className="h-6 w-40 rounded bg-slate-200" />
      <div className="h-24 rounded-lg bg-slate-200" />
    </div>
  );
}
