import "server-only";
import { and, eq, sql } from "drizzle-orm";
import { cachedReadBy } from "../db/cached-read";
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

// Changes made through this instance: a kept view from before one is not used again.
let version = 0;
const keptViews = cachedReadBy(
  (db, { staffId, table }: { staffId: string; table: TableName }) => readTableView(db, staffId, table),
  { ttlMs: 5_000, max: 500 },
);

/**
 * readTableView kept 5 s, so that a page whose other reads are kept renders in one pass. The person's own change shows
 * at once on this instance; on another, within the 5 s (their open table keeps what they chose meanwhile).
 */
export function cachedTableView<T extends TableName>(db: Db, staffId: string, table: T): Promise<TableViewOf<T>> {
  return keptViews(db, `${version}:${staffId}:${table}`, { staffId, table }) as Promise<TableViewOf<T>>;
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
  version++;
}
