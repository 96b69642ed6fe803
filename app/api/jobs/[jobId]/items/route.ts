import { withStaff } from "@/lib/auth/with-staff";
import { getDb } from "@/lib/db/client";
import { isItemState, listJobItems, readJobView } from "@/lib/jobs/view";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// The first items of a job in one state (failed, skipped…) with their reasons: the summary where a job was started.
export const GET = withStaff<{ jobId: string }>("read", { mayNot: "read jobs" }, async (request, _staff, { jobId }) => {
  const state = new URL(request.url).searchParams.get("state");
  if (!UUID.test(jobId)) return Response.json({ error: "No such job." }, { status: 404 });
  if (state !== null && !isItemState(state)) return Response.json({ error: "Not an item state." }, { status: 400 });
  const { db } = await getDb();
  const job = await readJobView(db, jobId);
  if (!job) return Response.json({ error: "No such job." }, { status: 404 });
  return Response.json(await listJobItems(db, job, { state: state ?? undefined }));
});
