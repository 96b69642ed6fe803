import { currentStaff } from "@/lib/auth";
import { can } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import { refuseUnreadableInput } from "@/lib/http/storable-input";
import { readJobView } from "@/lib/jobs/view";

const noStore = { "Cache-Control": "no-store" };

// A job's progress as JSON: polled by the job's page and progress bars, and for scripts. Any signed-in reader.
export async function GET(request: Request, { params }: { params: Promise<{ jobId: string }> }) {
  const unreadable = await refuseUnreadableInput(request, params);
  if (unreadable) return unreadable;
  const staff = await currentStaff();
  if (!staff) return Response.json({ error: "Sign in first." }, { status: 401, headers: noStore });
  if (!can(staff.role, "read")) return Response.json({ error: "Your role may not read jobs." }, { status: 403, headers: noStore });
  const { jobId } = await params;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(jobId)) return Response.json({ error: "No such job." }, { status: 404, headers: noStore });
  const job = await readJobView((await getDb()).db, jobId);
  if (!job) return Response.json({ error: "No such job." }, { status: 404, headers: noStore });
  return Response.json(job, { headers: noStore });
}
