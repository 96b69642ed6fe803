import type { NextRequest } from "next/server";
import { currentStaff } from "@/lib/auth";
import { can } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import { refuseUnreadableInput } from "@/lib/http/storable-input";
import { readJobNotices } from "@/lib/jobs/notices";

const noStore = { "Cache-Control": "no-store" };

// The signed-in person's own jobs that move or ended lately, with what came of the long ones in words: asked by the
// dashboard's shell every few seconds while one of them runs, so it can tell them when one ends while they are
// elsewhere. Never anyone else's jobs.
export async function GET(request: NextRequest) {
  const unreadable = await refuseUnreadableInput(request);
  if (unreadable) return unreadable;
  const staff = await currentStaff();
  if (!staff) return Response.json({ error: "Sign in first." }, { status: 401, headers: noStore });
  if (!can(staff.role, "read")) return Response.json({ error: "Your role may not read jobs." }, { status: 403, headers: noStore });
  const jobs = await readJobNotices((await getDb()).db, staff.id);
  return Response.json({ jobs }, { headers: noStore });
}
