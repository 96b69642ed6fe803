import { withStaff } from "@/lib/auth/with-staff";
import { correctionCost } from "@/lib/transactions/cost";

// What correcting N transactions of a link would cost under the rate budget right now: shown in the review list
// before a bulk correction starts. A read of the budget only; nothing is sent upstream.
export const GET = withStaff<{ linkId: string }>(
  "read",
  { mayNot: "read the rate budget" },
  async (request, _staff, { linkId }) => {
    const calls = Number(new URL(request.url).searchParams.get("calls"));
    if (!Number.isInteger(calls) || calls < 0 || calls > 100_000)
      return Response.json({ error: "calls must be a whole number from 0 to 100,000." }, { status: 400 });
    return Response.json(await correctionCost(linkId, calls));
  },
);
