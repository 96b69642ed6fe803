import { currentStaff } from "@/lib/auth";
import { can } from "@/lib/auth/roles";
import { readRateLimitsView } from "@/lib/budget/view";

const noStore = { "Cache-Control": "no-store" };

// The Rate limits page's data, polled by that page every few seconds.
export async function GET() {
  const staff = await currentStaff();
  if (!staff) return Response.json({ error: "Sign in first." }, { status: 401, headers: noStore });
  if (!can(staff.role, "read")) return Response.json({ error: "Your role may not read rate limits." }, { status: 403, headers: noStore });
  try {
    return Response.json(await readRateLimitsView(), { headers: noStore });
  } catch (error) {
    return Response.json({ error: error instanceof Error ? error.message : "The rate budget cannot be read." }, { status: 503, headers: noStore });
  }
}
