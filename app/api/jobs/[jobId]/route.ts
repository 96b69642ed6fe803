import { withStaff } from "@/lib/auth/with-staff";
import { getDb } from "@/lib/db/client";
import { readJobView } from "@/lib/jobs/view";

// A job's progress as JSON: polled by the job's page and progress bars, and for scripts. Any signed-in reader.
export const GET = withStaff<{ jobId: string }>(
  "read",
  { mayNot: "read jobs" },
  async (_request, _staff, { jobId }) => {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(jobId))
      return Response.json({ error: "No such job." }, { status: 404 });
    const job = await readJobView((await getDb()).db, jobId);
    if (!job) return Response.json({ error: "No such job." }, { status: 404 });
    return Response.json(job);
  },
);
