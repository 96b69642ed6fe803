import { currentStaff } from "@/lib/auth";
import { can } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import { refuseUnreadableInput } from "@/lib/http/storable-input";
import { isItemState, listJobItems, readJobView } from "@/lib/jobs/view";

const noStore = { "Cache-Control": "no-store" };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// The first items of a job in one state (failed, skipped…) with their reasons: the summary where a job was started.
export async function GET(request: Request, { params }: { params: Promise<{ jobId: string }> }) {
  const unreadable = await refuseUnreadableInput(request, params);
  if (unreadable) return unreadable;
  const staff = await currentStaff();
  if (!staff) return Response.json({ error: "Sign in first." }, { status: 401, headers: noStore });
  if (!can(staff.role, "read")) return Response.json({ error: "Your role may not read jobs." }, { status: 403, headers: noStore });
  const { jobId } = await params;
  const state = new URL(request.url).searchParams.get("state");
  if (!UUID.test(jobId)) return Response.json({ error: "No such job." }, { status: 404, headers: noStore });
  if (state !== null && !isItemState(state)) return Response.json({ error: "Not an item state." }, { status: 400, headers: noStore });
  const { db } = await getDb();
  const job = await readJobView(db, jobId);
  if (!job) return Response.json({ error: "No such job." }, { status: 404, headers: noStore });
  return Response.json(await listJobItems(db, job, { state: state ?? undefined }), { headers: noStore });
}
