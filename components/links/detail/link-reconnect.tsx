import { Suspense } from "react";
import { ScrollTable } from "@/components/ui/scroll-table";
import { type Role, can } from "@/lib/auth/roles";
import { linkErrorInfo, linkStateLabel } from "@/lib/links/error-codes";
import type { LinkDetails } from "@/lib/links/types";
import { logger } from "@/lib/logger";
import {
  type DeliveryView,
  type ReconnectOffer,
  type ReconnectRequestView,
  linkReconnectView,
} from "@/lib/reconnect/view";
import { utcText } from "./format";
import { ReconnectButton } from "./reconnect-button";

// A link's reconnect requests on its page: for a link in error whose fix lies with the end user, the button that asks
// them (support and up), and for every link, each request made, who asked, when, what became of its message (try by
// try) and whether the link came back. Read apart, in a Suspense boundary of its own.

export function LinkReconnect({ link, role, deleted }: { link: LinkDetails; role: Role; deleted: boolean }) {
  const needsUser = !deleted && link.state === "error" && linkErrorInfo(link.error_code ?? "")?.whoActs === "user";
  return (
    <Suspense fallback={needsUser ? <LinkReconnectSkeleton /> : null}>
      <LinkReconnectSection link={link} role={role} needsUser={needsUser} />
    </Suspense>
  );
}

async function LinkReconnectSection({ link, role, needsUser }: { link: LinkDetails; role: Role; needsUser: boolean }) {
  const offers = needsUser && can(role, "requestReconnect");
  let view: Awaited<ReturnType<typeof linkReconnectView>>;
  try {
    view = await linkReconnectView(link, { offer: offers });
  } catch (error) {
    logger().warn({ err: error, linkId: link.link_id }, "reading the link's reconnect requests failed");
    return needsUser ? (
      <p className="rounded-lg border border-dashed border-slate-300 bg-white px-4 py-4 text-sm text-slate-600">
        The link&apos;s reconnect requests could not be read just now. Reload the page in a moment.
      </p>
    ) : null;
  }
  const { offer, requests } = view;
  if (!needsUser && requests.length === 0) return null;
  return (
    <section aria-labelledby="link-reconnect-heading" className="space-y-2" data-testid="link-reconnect">
      <h2 id="link-reconnect-heading" className="text-lg font-semibold">
        Reconnect requests
      </h2>
      {offers && offer ? <Offer linkId={link.link_id} offer={offer} /> : null}
      {requests.length > 0 ? (
        <RequestsTable requests={requests} link={link} />
      ) : (
        <p className="text-sm text-slate-600">
          Nobody has asked this link&apos;s user to reconnect through Linkdesk yet.
        </p>
      )}
    </section>
  );
}

function Offer({ linkId, offer }: { linkId: string; offer: ReconnectOffer }) {
  return (
    <div className="space-y-3 rounded-lg border border-slate-200 bg-white p-4">
      <div className="space-y-1 text-sm text-slate-700">
        <p>
          Linkdesk creates a relink session for this link (it keeps the link&apos;s id, data, webhook and tags) and
          hands its token to the product&apos;s back end
          {offer.destinations.webhook ? (
            <>
              {" "}
              (<span className="font-mono">{offer.destinations.webhook}</span>)
            </>
          ) : null}
          , which shows the end user the way back
          {offer.emails && offer.customer?.email ? (
            <>
              ; and emails <span className="font-mono">{offer.customer.email}</span> a link to the product&apos;s
              reconnect page
            </>
          ) : null}
          .
        </p>
        {offer.customer ? (
          <p className="text-slate-600">
            Customer user <span className="font-mono">{offer.customer.id}</span>, known from {offer.customer.source}.
          </p>
        ) : null}
      </div>
      {offer.unavailable ? (
        <p className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900" role="status">
          {offer.unavailable}
        </p>
      ) : (
        <ReconnectButton linkId={linkId} />
      )}
    </div>
  );
}

const DELIVERY_STATE_WORDS: Record<DeliveryView["state"], string> = {
  pending: "On its way",
  delivered: "Delivered",
  failed: "Not delivered",
};

const DELIVERY_STATE_TONES: Record<DeliveryView["state"], string> = {
  pending: "bg-amber-50 text-amber-900 ring-amber-200",
  delivered: "bg-emerald-50 text-emerald-900 ring-emerald-200",
  failed: "bg-red-50 text-red-900 ring-red-200",
};

function RequestsTable({ requests, link }: { requests: ReconnectRequestView[]; link: LinkDetails }) {
  return (
    <ScrollTable>
      <table className="data-table min-w-full text-left text-sm" aria-label="Reconnect requests of this link">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs font-medium uppercase tracking-wide text-slate-500">
          <tr>
            {["Asked", "Why", "Delivery", "Back?"].map((name) => (
              <th key={name} scope="col" className="px-3 py-2">
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 align-top">
          {requests.map((request) => (
            <tr key={request.id} data-testid="reconnect-request">
              <td className="px-3 py-2">
                <div>{utcText(request.requestedAt)}</div>
                <div className="text-xs text-slate-500">by {request.requestedBy}</div>
              </td>
              <td className="min-w-56 whitespace-normal px-3 py-2">
                <div>{request.errorLabel}</div>
                <div className="text-xs text-slate-500">
                  Customer <span className="font-mono">{request.customerUserId}</span> ({request.customerSource})
                </div>
              </td>
              <td className="min-w-80 whitespace-normal px-3 py-2">
                <Delivery request={request} />
              </td>
              <td className="min-w-48 whitespace-normal px-3 py-2">
                <Back request={request} link={link} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}

function Delivery({ request }: { request: ReconnectRequestView }) {
  if (request.state === "failed" || request.reason)
    return <p className="text-red-800">{request.reason ?? "Went no further."}</p>;
  if (request.state === "creating") return <p className="text-slate-600">Being made…</p>;
  return (
    <div className="space-y-2">
      {request.deliveries.map((delivery) => (
        <div key={delivery.channel} data-testid={`reconnect-delivery-${delivery.channel}`}>
          <div className="flex flex-wrap items-center gap-2">
            <span className="font-medium">{delivery.label}</span>
            <span
              className={`rounded-full px-2 py-0.5 text-xs ring-1 ring-inset ${DELIVERY_STATE_TONES[delivery.state]}`}
            >
              {DELIVERY_STATE_WORDS[delivery.state]}
            </span>
          </div>
          {delivery.lastOutcome ? <p className="text-xs text-slate-600">{delivery.lastOutcome}</p> : null}
          {delivery.tries.length > 0 ? (
            <details className="text-xs text-slate-600">
              <summary className="cursor-pointer select-none">
                {delivery.tries.length === 1 ? "1 try" : `${delivery.tries.length} tries`}
                {delivery.recipient ? ` to ${delivery.recipient}` : ""}
              </summary>
              <ol className="mt-1 space-y-0.5">
                {delivery.tries.map((attempt) => (
                  <li key={attempt.attempt}>
                    {attempt.attempt}. {utcText(attempt.at)}, {attempt.latencyMs} ms: {attempt.detail}
                  </li>
                ))}
              </ol>
            </details>
          ) : null}
        </div>
      ))}
      {request.sessionTokenHint ? (
        <p className="text-xs text-slate-500">
          Session token <span className="font-mono">{request.sessionTokenHint}</span>
          {request.keptTags.length > 0 || request.keptWebhook
            ? `; kept the webhook${request.keptTags.length > 0 ? ` and ${request.keptTags.length === 1 ? "1 tag" : `${request.keptTags.length} tags`}` : ""}`
            : ""}
        </p>
      ) : null}
    </div>
  );
}

function Back({ request, link }: { request: ReconnectRequestView; link: LinkDetails }) {
  if (request.reconnectedAt)
    return <p className="text-emerald-800">Reconnected: connected again at {utcText(request.reconnectedAt)}.</p>;
  if (request.state !== "sent") return <p className="text-slate-500">—</p>;
  if (link.state === "connected") return <p className="text-emerald-800">The link is connected now.</p>;
  return (
    <p className="text-slate-600">
      Not yet:{" "}
      {link.state === "error"
        ? `the link is still in error${link.error_code ? ` (${link.error_code})` : ""}.`
        : `the link's state is ${linkStateLabel(link.state)}.`}
    </p>
  );
}

export function LinkReconnectSkeleton() {
  return (
    <div aria-busy="true" aria-label="Loading the link's reconnect requests" className="animate-pulse space-y-2">
      <div className="h-6 w-48 rounded bg-slate-200" />
      <div className="h-24 rounded-lg bg-slate-200" />
    </div>
  );
}
