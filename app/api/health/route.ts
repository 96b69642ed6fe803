// Liveness for load balancers and the launcher: answers without touching the upstream or revealing anything.
export function GET() {
  return Response.json({ ok: true }, { headers: { "Cache-Control": "no-store" } });
}
