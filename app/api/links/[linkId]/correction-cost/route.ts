import { currentStaff } from "@/lib/auth";
import { can } from "@/lib/auth/roles";
import { refuseUnreadableInput } from "@/lib/http/storable-input";
import { correctionCost } from "@/lib/transactions/cost";

const noStore = { "Cache-Control": "no-store" };

// What correcting N transactions of a link would cost under the rate budget right now: shown in the review list
// before a bulk correction starts. A read of the budget only; nothing is sent upstream.
export async function GET(request: Request, { params }: { params: Promise<{ linkId: string }> }) {
  const unreadable = await refuseUnreadableInput(request, params);
  if (unreadable) return unreadable;
  const staff = await currentStaff();
  if (!staff) return Response.json({ error: "Sign in first." }, { status: 401, headers: noStore });
  if (!can(staff.role, "read")) return Response.json({ error: "Your role may not read the rate budget." }, { status: 403, headers: noStore });
  const { linkId } = await params;
  const calls = Number(new URL(request.url).searchParams.get("calls"));
  if (!Number.isInteger(calls) || calls < 0 || calls > 100_000) return Response.json({ error: "calls must be a whole number from 0 to 100,000." }, { status: 400, headers: noStore });
  return Response.json(await correctionCost(linkId, calls), { headers: noStore });
}
