import { currentStaff } from "@/lib/auth";
import { can } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import { readBulkJob } from "@/lib/jobs/bulk-correction";

// Progress of a bulk job, for the page that started it (polled) and for scripts. Readable by its starter and admins.
export async function GET(_request: Request, { params }: { params: Promise<{ jobId: string }> }) {
  const staff = await currentStaff();
  if (!staff) return Response.json({ error: "Sign in first." }, { status: 401 });
  const { jobId } = await params;
  if (!/^[0-9a-f-]{36}$/i.test(jobId)) return Response.json({ error: "No such job." }, { status: 404 });
  const job = await readBulkJob((await getDb()).db, jobId);
  if (!job || (job.createdBy !== staff.id && !can(staff.role, "manageStaff"))) return Response.json({ error: "No such job." }, { status: 404 });
  const { createdBy: _omit, ...view } = job;
  void _omit;
  return Response.json(view, { headers: { "Cache-Control": "no-store" } });
}
