"use client";

import { DataTable } from "@/components/data-table/data-table";
import { createDataTableColumnHelper } from "@/components/data-table/features";
import { exactUtc, RelativeTime } from "@/components/data-table/relative-time";
import { ShortId } from "@/components/ui/short-id";
import { WEBHOOK_OUTCOME_MEANINGS, WEBHOOK_VERIFICATION_MEANINGS } from "@/lib/webhooks/labels";
import type { WebhookEventView } from "@/lib/webhooks/query";
import { AttemptsCell, KindCell, OutcomeCell, VerificationCell } from "./cells";
import { ReprocessButton } from "./reprocess-button";

// The Webhooks page's table: one line a request. The columns people scan (kind, link, verification, outcome) come
// first, so they stay on screen at 1024 px; the rest of an event (its ids, its body's fields) opens on demand.

const helper = createDataTableColumnHelper<WebhookEventView>();
const none = <span className="text-slate-500">—</span>;

const columns = helper.columns([
  helper.accessor("event", {
    id: "kind",
    header: "Kind",
    enableSorting: false,
    cell: ({ row }) => <KindCell event={row.original.event} />,
  }),
  helper.accessor("linkId", {
    id: "link",
    header: "Link",
    enableSorting: false,
    cell: ({ row }) =>
      row.original.linkId ? (
        <ShortId id={row.original.linkId} what="link id" href={`/links/${encodeURIComponent(row.original.linkId)}`} />
      ) : (
        none
      ),
  }),
  helper.accessor("verification", {
    id: "verification",
    header: "Verification",
    enableSorting: false,
    cell: ({ row }) => (
      <VerificationCell
        verification={row.original.verification}
        refusal={row.original.refusal}
        signedAt={row.original.signedAt}
        receivedAt={row.original.receivedAt}
      />
    ),
  }),
  helper.accessor("outcome", {
    id: "outcome",
    header: "Outcome",
    enableSorting: false,
    cell: ({ row }) => <OutcomeCell outcome={row.original.outcome} detail={row.original.detail} />,
  }),
  helper.accessor("processAttempts", {
    id: "attempts",
    header: "Attempts",
    enableSorting: false,
    cell: ({ row }) => <AttemptsCell {...row.original} />,
  }),
  helper.accessor("receivedAt", {
    id: "received",
    header: "Received",
    enableSorting: false,
    cell: ({ row, table }) => (
      <RelativeTime value={row.original.receivedAt.getTime()} now={table.options.meta?.renderedAt ?? 0} />
    ),
  }),
  helper.accessor("processedAt", {
    id: "processed",
    header: "Processed",
    enableSorting: false,
    cell: ({ row, table }) =>
      row.original.processedAt ? (
        <RelativeTime value={row.original.processedAt.getTime()} now={table.options.meta?.renderedAt ?? 0} />
      ) : (
        none
      ),
  }),
  helper.display({ id: "details", header: "Details", cell: ({ row }) => <EventDetails event={row.original} /> }),
  helper.display({
    id: "reprocess",
    header: "Reprocess",
    cell: ({ row }) =>
      row.original.verification !== "refused" ? (
        <ReprocessButton
          eventId={row.original.id}
          label={`Reprocess the ${row.original.event ?? "unnamed"} event of ${row.original.linkId ?? "no link"} received ${exactUtc(row.original.receivedAt.getTime())}`}
        />
      ) : (
        <span
          className="text-xs text-slate-500"
          title="A refused request was never verified and its body was not kept: there is nothing to process."
        >
          Nothing to process
        </span>
      ),
  }),
]);

export function WebhooksTable({
  rows,
  renderedAt,
  canReprocess,
  view,
}: {
  rows: WebhookEventView[];
  renderedAt: number;
  canReprocess: boolean;
  view: { pathname: string; query: string };
}) {
  return (
    <DataTable
      columns={columns}
      data={rows}
      getRowId={(row) => row.id}
      sort={null}
      view={view}
      renderedAt={renderedAt}
      label="Webhook events"
      columnVisibility={canReprocess ? undefined : HIDE_REPROCESS}
    />
  );
}

const HIDE_REPROCESS = { reprocess: false };

/** Everything else about one request, on demand, as text: its ids, the times, what processing did, the body's fields. */
function EventDetails({ event }: { event: WebhookEventView }) {
  const facts: [string, string | null][] = [
    ["Event id", event.id],
    ["Kind as sent", event.event],
    ["Event time (webhook_timestamp)", event.eventAt ? exactUtc(event.eventAt.getTime()) : null],
    ["Signed (iat)", event.signedAt ? exactUtc(event.signedAt.getTime()) : null],
    ["Received", exactUtc(event.receivedAt.getTime())],
    ["Last received again", event.redeliveries > 0 ? exactUtc(event.lastReceivedAt.getTime()) : null],
    ["Refused because", event.refusal],
    ["Verification", event.verification === "late" ? WEBHOOK_VERIFICATION_MEANINGS.late : null],
    ["Outcome", WEBHOOK_OUTCOME_MEANINGS[event.outcome]],
    ["What processing did", event.detail],
    ["Next try", event.outcome === "pending" && event.nextAttemptAt ? exactUtc(event.nextAttemptAt.getTime()) : null],
    ["Idempotency key", event.idempotencyKey],
    ["Delivery token", event.deliveryToken],
    ["Signing key (kid)", event.kid],
    ["Sent from", event.sourceAddress],
  ];
  const { fields, more } = event.body;
  return (
    <details className="text-xs">
      <summary className="cursor-pointer text-slate-600 hover:text-slate-900">Details</summary>
      <div className="mt-2 w-[28rem] max-w-[70vw] space-y-3 whitespace-normal break-words text-slate-800">
        <dl className="grid grid-cols-[10rem_1fr] gap-x-3 gap-y-1">
          {facts
            .filter((fact): fact is [string, string] => fact[1] !== null && fact[1] !== "")
            .map(([name, value]) => (
              <Fact key={name} name={name} value={value} />
            ))}
        </dl>
        {event.verification !== "refused" ? (
          <div>
            <p className="mb-1 font-medium text-slate-600">Body</p>
            {fields.length > 0 ? (
              <dl
                className="grid grid-cols-[10rem_1fr] gap-x-3 gap-y-1 rounded bg-slate-50 p-2"
                data-testid="webhook-body"
              >
                {fields.map((field, i) => (
                  <Fact key={`${i}:${field.name}`} name={field.name} value={field.value} mono />
                ))}
              </dl>
            ) : (
              <p className="text-slate-500">The body has no fields.</p>
            )}
            {more > 0 ? (
              <p className="mt-1 text-slate-500">{more.toLocaleString("en")} more fields are in the CSV export.</p>
            ) : null}
          </div>
        ) : (
          <p className="text-slate-500">A refused request&apos;s body is not kept.</p>
        )}
      </div>
    </details>
  );
}

function Fact({ name, value, mono = false }: { name: string; value: string; mono?: boolean }) {
  return (
    <>
      <dt className={`text-slate-500${mono ? " font-mono" : ""}`}>{name}</dt>
      <dd className={mono ? "font-mono" : undefined}>{value}</dd>
    </>
  );
}
