import { withStaff } from "@/lib/auth/with-staff";
import { readRateLimitsView } from "@/lib/budget/view";

// The Rate limits page's data, polled by that page every few seconds.
export const GET = withStaff("read", { mayNot: "read rate limits" }, async () => {
  try {
    return Response.json(await readRateLimitsView());
  } catch (error) {
    return Response.json(
      { error: error instanceof Error ? error.message : "The rate budget cannot be read." },
      { status: 503 },
    );
  }
});
