import { currentStaff } from "@/lib/auth";
import { can } from "@/lib/auth/roles";
import { getDb } from "@/lib/db/client";
import { findImportJobByHash } from "@/lib/jobs/import";

const noStore = { "Cache-Control": "no-store" };

// Whether a file (by the SHA-256 of its bytes, computed by the page's worker) was imported before: the page offers
// that import's results instead of a second import. Only a hint: the server action checks again, by the hash of the
// bytes it receives. For the roles that may import.
export async function GET(request: Request) {
  const staff = await currentStaff();
  if (!staff) return Response.json({ error: "Sign in first." }, { status: 401, headers: noStore });
  if (!can(staff.role, "import")) return Response.json({ error: "Your role may not import links." }, { status: 403, headers: noStore });
  const sha256 = new URL(request.url).searchParams.get("sha256") ?? "";
  if (!/^[0-9a-f]{64}$/.test(sha256)) return Response.json({ error: "sha256 must be 64 hex digits." }, { status: 400, headers: noStore });
  const job = await findImportJobByHash((await getDb()).db, sha256);
  return Response.json({ job: job ? { id: job.id, state: job.state, title: job.title, createdAt: job.createdAt.toISOString(), createdByEmail: job.createdByEmail } : null }, { headers: noStore });
}
