import type { NextRequest } from "next/server";
import { currentStaff } from "@/lib/auth";
import { can } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import { refuseUnreadableInput } from "@/lib/http/storable-input";
import { parseJobListFilters } from "@/lib/jobs/filters";
import { listJobs } from "@/lib/jobs/view";

const noStore = { "Cache-Control": "no-store" };

// The jobs list as JSON (newest first, filtered as the Jobs page is): polled by that page while jobs run.
export async function GET(request: NextRequest) {
  const unreadable = await refuseUnreadableInput(request);
  if (unreadable) return unreadable;
  const staff = await currentStaff();
  if (!staff) return Response.json({ error: "Sign in first." }, { status: 401, headers: noStore });
  if (!can(staff.role, "read")) return Response.json({ error: "Your role may not read jobs." }, { status: 403, headers: noStore });
  const { filters, dropped } = parseJobListFilters(request.nextUrl.searchParams);
  if (dropped.length > 0) return Response.json({ error: "Some filters are not valid.", ignored: dropped }, { status: 400, headers: noStore });
  const { jobs } = await listJobs((await getDb()).db, filters);
  return Response.json(jobs, { headers: noStore });
}
