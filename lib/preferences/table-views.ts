import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { staffPreferences } from "../db/schema";
import { DEFAULT_TABLE_VIEWS, type TableName, type TableViewOf, tableViewSchema } from "../schemas/preferences";

// A person's view of a table (hidden columns, density) is kept per staff member in the database, not in the browser:
// it follows them to another browser or machine, and the server renders the table as they left it, with no flash of
// the default columns while a script catches up.

const preferenceName = (table: TableName) => `table-view:${table}`;

/** The person's view of `table`, or the default when they never chose, or when what is stored no longer fits the table. */
export async function readTableView<T extends TableName>(db: Db, staffId: string, table: T): Promise<TableViewOf<T>> {
  const [row] = await db
    .select({ value: staffPreferences.value })
    .from(staffPreferences)
    .where(and(eq(staffPreferences.staffId, staffId), eq(staffPreferences.name, preferenceName(table))))
    .limit(1);
  const parsed = row ? tableViewSchema.safeParse(row.value) : null;
  return parsed?.success && parsed.data.table === table ? (parsed.data as TableViewOf<T>) : DEFAULT_TABLE_VIEWS[table];
}

/** Remembers the person's view of a table (one row per person and table, replaced). */
export async function writeTableView(db: Db, staffId: string, view: TableViewOf<TableName>): Promise<void> {
  const value = tableViewSchema.parse(view);
  await db
    .insert(staffPreferences)
    .values({ staffId, name: preferenceName(value.table), value })
    .onConflictDoUpdate({
      target: [staffPreferences.staffId, staffPreferences.name],
      set: { value, updatedAt: sql`now()` },
    });
}
