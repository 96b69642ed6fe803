import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDatabase, type Db } from "./client";
import { defaultMigrationsFolder, migrateDatabase } from "./migrate";
import { createScratchPostgresDatabase, withTestDatabases } from "../testing/databases";

// On PGlite too when DATABASE_URL is set: the migrator takes another path there (migrate.ts), and every embedded
// dashboard migrates its own database.
const databases = withTestDatabases({ fromEmpty: true, both: true });

const journal = JSON.parse(readFileSync(path.join(defaultMigrationsFolder(), "meta", "_journal.json"), "utf8")) as {
  entries: { tag: string; when: number }[];
};

/** When each applied migration was made, as drizzle's bookkeeping table records it. */
async function appliedMigrations(db: Db): Promise<number[]> {
  const result = await db.execute<{ created_at: string }>(
    sql`select created_at from drizzle.__drizzle_migrations order by id`,
  );
  return result.rows.map((r) => Number(r.created_at));
}

async function tableNames(db: Db): Promise<string[]> {
  const result = await db.execute<{ table_name: string }>(
    sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
  );
  return result.rows.map((r) => r.table_name);
}

describe.each(databases)("$kind", (target) => {
  it("applies every checked-in migration once, and applying again changes nothing", async () => {
    const database = target.database;
    expect(journal.entries.map((e) => e.tag)).toEqual([
      "0000_init",
      "0001_audit_log_append_only",
      "0002_audit_log_correlation_id",
      "0003_budget",
      "0004_budget_functions",
      "0005_bulk_jobs",
      "0006_links_read_model",
      "0007_links_state_refreshed_index",
      "0008_staff_sessions_valid_after",
      "0009_jobs",
      "0010_drop_bulk_jobs",
      "0011_staff_password_change_required",
      "0012_staff_preferences_snapshot_source",
      "0013_imported_links",
      "0014_sign_in_attempts_being_checked",
      "0015_every_link_live",
      "0016_sync_failing",
      "0017_webhook_late_retries",
      "0018_upstream_read_notices",
      "0019_import_upstream_match",
      "0020_outbound_and_reconnect",
      "0021_reconnected_links",
      "0022_reconnect_campaigns",
      "0023_registered_customers",
      "0024_alerts",
    ]);
    expect(await appliedMigrations(database.db)).toEqual(journal.entries.map((e) => e.when));
    expect(await tableNames(database.db)).toEqual([
      "alerts",
      "audit_log",
      "budget_closures",
      "budget_events",
      "budget_reservations",
      "import_file_rows",
      "imported_links",
      "job_items",
      "jobs",
      "link_customers",
      "link_snapshots",
      "links",
      "outbound_attempts",
      "outbound_deliveries",
      "reconnect_requests",
      "sign_in_attempts",
      "staff",
      "staff_preferences",
      "sync_state",
      "upstream_read_notices",
      "webhook_events",
    ]);

    await migrateDatabase(database);
    await migrateDatabase(database);
    expect(await appliedMigrations(database.db)).toEqual(journal.entries.map((e) => e.when));
  });

  it("names the folder when the migrations cannot be found", async () => {
    await expect(migrateDatabase(target.database, "/nonexistent/migrations")).rejects.toThrow(
      "No migrations found at /nonexistent/migrations",
    );
  });

  if (target.kind === "postgres") {
    it("lets several instances starting at once all migrate a fresh database", async () => {
      const scratch = await createScratchPostgresDatabase();
      const opened: Awaited<ReturnType<typeof createDatabase>>[] = [];
      try {
        const starts = await Promise.allSettled([1, 2, 3, 4].map(() => createDatabase({ url: scratch.url })));
        for (const start of starts) if (start.status === "fulfilled") opened.push(start.value);
        expect(starts.map((s) => (s.status === "fulfilled" ? "started" : String(s.reason)))).toEqual([
          "started",
          "started",
          "started",
          "started",
        ]);
        expect(await appliedMigrations(opened[0]!.db)).toEqual(journal.entries.map((e) => e.when));
      } finally {
        await Promise.all(opened.map((d) => d.close()));
        await scratch.drop();
      }
    });
  }
});
