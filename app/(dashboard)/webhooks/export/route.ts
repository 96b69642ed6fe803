import { withStaff } from "@/lib/auth/with-staff";
import { csvExport } from "@/lib/http/csv-export";
import { parseWebhookFilters, streamWebhookCsv } from "@/lib/webhooks/query";

// The Webhooks page's "Export CSV": every request of the filtered view, streamed in keyset batches.
export const GET = withStaff(
  "read",
  { signIn: "Sign in to export the webhook events.", mayNot: "read the webhook events" },
  async (request) =>
    csvExport({
      filename: "webhooks",
      parse: () => parseWebhookFilters(request.nextUrl.searchParams),
      rows: streamWebhookCsv,
    }),
);
