import type { NextRequest } from "next/server";
import { csvExport } from "@/lib/http/csv-export";
import { refuseUnreadableInput } from "@/lib/http/storable-input";
import { parseWebhookFilters, streamWebhookCsv } from "@/lib/webhooks/query";

// The Webhooks page's "Export CSV": every request of the filtered view (sign-in and the read permission checked by
// csvExport), streamed in keyset batches.
export async function GET(request: NextRequest) {
  const unreadable = await refuseUnreadableInput(request);
  if (unreadable) return unreadable;
  return csvExport({
    what: "the webhook events",
    filename: "webhooks",
    parse: () => parseWebhookFilters(request.nextUrl.searchParams),
    rows: streamWebhookCsv,
  });
}
