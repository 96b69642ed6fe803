// Liveness for process managers and the launcher: the process answers HTTP. Touches neither the database nor the
// upstream and reveals nothing; whether to send it traffic is readiness (/api/ready).
export function GET() {
  return Response.json({ ok: true }, { headers: { "Cache-Control": "no-store" } });
}
