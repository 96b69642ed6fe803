import { withStaff } from "@/lib/auth/with-staff";
import { getDb } from "@/lib/db/client";
import { IMPORT_KIND } from "@/lib/jobs/import-items";
import { readImportOutcomes, readImportSummary } from "@/lib/jobs/import-outcomes";
import { readJob } from "@/lib/jobs/store";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// An import job's reconciliation, as it lands: a row for every link of its file (line, identity key, customer user,
// tags, outcome, link id, reason in words) and the whole file's counts. Polled by the Import page; the JSON form of
// the CSV at /import/{id}/export. Any signed-in reader (the Jobs pages show import jobs to everyone too); ?offset=
// pages through a large fleet, 500 links at a time.
export const GET = withStaff<{ jobId: string }>("read", { mayNot: "read jobs" }, async (request, _staff, { jobId }) => {
  const offset = Number(new URL(request.url).searchParams.get("offset") ?? "0");
  if (!UUID.test(jobId) || !Number.isInteger(offset) || offset < 0)
    return Response.json({ error: "No such import." }, { status: 404 });
  const { db } = await getDb();
  const job = await readJob(db, jobId);
  if (!job || job.kind !== IMPORT_KIND) return Response.json({ error: "No such import." }, { status: 404 });
  const [links, summary] = await Promise.all([
    readImportOutcomes(db, jobId, { limit: 500, offset }),
    readImportSummary(db, jobId),
  ]);
  return Response.json({ jobId, params: job.params, summary, offset, links });
});
