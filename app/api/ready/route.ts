import { checkReadiness } from "@/lib/readiness";

// Readiness for load balancers and orchestrators: 200 when this instance should get traffic, 503 while it shuts down
// or its database does not answer, saying which. Public like /api/health; it reveals nothing else.
export async function GET() {
  const readiness = await checkReadiness();
  return Response.json(readiness, { status: readiness.ready ? 200 : 503, headers: { "Cache-Control": "no-store" } });
}
