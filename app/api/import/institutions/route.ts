import { z } from "zod";
import { withStaff } from "@/lib/auth/with-staff";
import { MAX_INSTITUTION_NAMES } from "@/lib/import/limits";
import { institutionNames } from "@/lib/upstream/institutions";
import { importInstitutionIdSchema } from "@/lib/upstream/schemas";

const idsSchema = z.array(importInstitutionIdSchema).min(1).max(MAX_INSTITUTION_NAMES);

// Names of the institutions an import preview shows (?id=chase&id=mx.chase), for the roles that may import. Each
// distinct id is looked up once through the rate budget and cached in this process; an id the upstream does not know
// is null, and ids not looked up (the budget said no, or the upstream failed) are listed as unresolved: the page then
// shows the id alone.
export const GET = withStaff("import", { mayNot: "import links" }, async (request) => {
  const parsed = idsSchema.safeParse([...new Set(new URL(request.url).searchParams.getAll("id"))]);
  if (!parsed.success) {
    return Response.json(
      {
        error: `Give 1 to ${MAX_INSTITUTION_NAMES} institution ids (id=…), each an institution id or <provider>.<id>.`,
      },
      { status: 400 },
    );
  }
  const { names, missing } = await institutionNames(parsed.data);
  return Response.json({ names: Object.fromEntries(names), unresolved: missing });
});
