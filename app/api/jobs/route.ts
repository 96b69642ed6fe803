import { withStaff } from "@/lib/auth/with-staff";
import { getDb } from "@/lib/db/client";
import { parseJobListFilters } from "@/lib/jobs/filters";
import { listJobs } from "@/lib/jobs/view";

// The jobs list as JSON (newest first, filtered as the Jobs page is): polled by that page while jobs run.
export const GET = withStaff("read", { mayNot: "read jobs" }, async (request) => {
  const { filters, dropped } = parseJobListFilters(request.nextUrl.searchParams);
  if (dropped.length > 0)
    return Response.json({ error: "Some filters are not valid.", ignored: dropped }, { status: 400 });
  const { jobs } = await listJobs((await getDb()).db, filters);
  return Response.json(jobs);
});
