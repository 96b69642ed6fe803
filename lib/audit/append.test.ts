import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { withTestDatabases } from "../testing/databases";
import { appendAudit } from "./append";

// On PGlite too when DATABASE_URL is set: each driver encodes the prepared insert's JSON placeholders its own way.
const databases = withTestDatabases({ both: true });

describe.each(databases)("$kind", (target) => {
  it("stores input, before and after as JSON objects that SQL can look into", async () => {
    const db = target.database.db;
    const correlationId = randomUUID();
    await appendAudit(
      {
        actor: null,
        action: "job.pause",
        outcome: "ok",
        correlationId,
        input: { job: "j-1", n: 2 },
        before: { state: "running" },
        after: ["paused"],
      },
      db,
    );
    const { rows } = await db.execute<{ input: string; before: string; after: string; job: string }>(
      sql`select jsonb_typeof(input) as input, jsonb_typeof(before) as before, jsonb_typeof(after) as after, input ->> 'job' as job from audit_log where correlation_id = ${correlationId}`,
    );
    expect(rows).toEqual([{ input: "object", before: "object", after: "array", job: "j-1" }]);
  });
});
