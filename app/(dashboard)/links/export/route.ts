import type { NextRequest } from "next/server";
import { currentStaff } from "@/lib/auth";
import { can } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import { parseLinkListParams, streamLinksCsv } from "@/lib/links/query";
import { logger } from "@/lib/logger";

// The Links page's "Export CSV": every row of the filtered view in its order (the page number aside), streamed in
// keyset batches so 100,000 links cost the server no more memory than one batch.

const noStore = { "Cache-Control": "no-store" };

export async function GET(request: NextRequest) {
  const staff = await currentStaff();
  if (!staff) return Response.json({ error: "Sign in to export the links." }, { status: 401, headers: noStore });
  if (!can(staff.role, "read")) return Response.json({ error: "Your role may not read the links." }, { status: 403, headers: noStore });

  const { params, dropped } = parseLinkListParams(request.nextUrl.searchParams);
  // The page links here with valid filters only; exporting a wider view than asked for, silently, would mislead.
  if (dropped.length > 0) {
    return Response.json(
      { error: "Some filters are not valid.", ignored: dropped.map(({ param, reason }) => ({ param, reason })) },
      { status: 400, headers: noStore },
    );
  }

  const { db } = await getDb();
  const chunks = streamLinksCsv(db, params);
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        // Headers are gone already: failing the stream makes the browser report a failed download, not a short file.
        logger().error({ err: error }, "links export failed while streaming");
        controller.error(error);
      }
    },
    async cancel() {
      await chunks.return();
    },
  });

  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  return new Response(stream, {
    headers: {
      ...noStore,
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="linkdesk-links-${stamp}.csv"`,
    },
  });
}
