import { currentStaff } from "@/lib/auth";
import { can } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import { refuseUnreadableInput } from "@/lib/http/storable-input";
import { IMPORT_KIND, readImportOutcomes, readImportSummary } from "@/lib/jobs/import";
import { readJob } from "@/lib/jobs/store";

const noStore = { "Cache-Control": "no-store" };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// An import job's reconciliation, as it lands: a row for every link of its file (line, identity key, customer user,
// tags, outcome, link id, reason in words) and the whole file's counts. Polled by the Import page; the JSON form of
// the CSV at /import/{id}/export. Any signed-in reader (the Jobs pages show import jobs to everyone too); ?offset=
// pages through a large fleet, 500 links at a time.
export async function GET(request: Request, { params }: { params: Promise<{ jobId: string }> }) {
  const unreadable = await refuseUnreadableInput(request, params);
  if (unreadable) return unreadable;
  const staff = await currentStaff();
  if (!staff) return Response.json({ error: "Sign in first." }, { status: 401, headers: noStore });
  if (!can(staff.role, "read")) return Response.json({ error: "Your role may not read jobs." }, { status: 403, headers: noStore });
  const { jobId } = await params;
  const offset = Number(new URL(request.url).searchParams.get("offset") ?? "0");
  if (!UUID.test(jobId) || !Number.isInteger(offset) || offset < 0) return Response.json({ error: "No such import." }, { status: 404, headers: noStore });
  const { db } = await getDb();
  const job = await readJob(db, jobId);
  if (!job || job.kind !== IMPORT_KIND) return Response.json({ error: "No such import." }, { status: 404, headers: noStore });
  const [links, summary] = await Promise.all([readImportOutcomes(db, jobId, { limit: 500, offset }), readImportSummary(db, jobId)]);
  return Response.json({ jobId, params: job.params, summary, offset, links }, { headers: noStore });
}
