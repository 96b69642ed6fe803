import "server-only";
import type { Db } from "../db/client";
import { getDb } from "../db/client";
import { logger } from "../logger";

const noStore = { "Cache-Control": "no-store" };

/**
 * A page's "Export CSV", inside a staff route (lib/auth/with-staff.ts checks sign-in and role): refuses invalid filters (exporting a wider view than
 * asked for, silently, would mislead), answers 404 when the one thing exported (a job) is not there or not of the
 * export's kind (an empty 200 would read as "nothing to export"), then streams every row of the view, batch by batch,
 * so a large export costs the server no more memory than one batch.
 */
export async function csvExport<F, S = undefined>(opts: {
  filename: string;
  parse: () => { filters: F; dropped: { param: string; reason: string }[] };
  /** The one thing the export is of, looked up before anything is sent: null answers 404 with `notFound`. */
  subject?: { find: (db: Db, filters: F) => Promise<S | null>; notFound: string };
  rows: (db: Db, filters: F, subject: S) => AsyncGenerator<string, void, unknown>;
}): Promise<Response> {
  const { filters, dropped } = opts.parse();
  if (dropped.length > 0) {
    return Response.json(
      { error: "Some filters are not valid.", ignored: dropped.map(({ param, reason }) => ({ param, reason })) },
      { status: 400, headers: noStore },
    );
  }

  const { db } = await getDb();
  const subject = opts.subject ? await opts.subject.find(db, filters) : (undefined as S);
  if (subject === null) return Response.json({ error: opts.subject!.notFound }, { status: 404, headers: noStore });
  const chunks = opts.rows(db, filters, subject);
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        // Headers are gone already: failing the stream makes the browser report a failed download, not a short file.
        logger().error({ err: error, export: opts.filename }, "export failed while streaming");
        controller.error(error);
      }
    },
    async cancel() {
      await chunks.return();
    },
  });

  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return new Response(stream, {
    headers: {
      ...noStore,
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="linkdesk-${opts.filename}-${stamp}.csv"`,
    },
  });
}
