import { withStaff } from "@/lib/auth/with-staff";
import { getDb } from "@/lib/db/client";
import { readJobNotices } from "@/lib/jobs/notices";

// The signed-in person's own jobs that move or ended lately, with what came of the long ones in words: asked by the
// dashboard's shell every few seconds while one of them runs, so it can tell them when one ends while they are
// elsewhere. Never anyone else's jobs.
export const GET = withStaff("read", { mayNot: "read jobs" }, async (_request, staff) => {
  const jobs = await readJobNotices((await getDb()).db, staff.id);
  return Response.json({ jobs });
});
