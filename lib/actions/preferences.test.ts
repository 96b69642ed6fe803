import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { SignedInStaff } from "../auth/credentials";
import { type Database } from "../db/client";
import { openTestPglite } from "../testing/pglite";
import { auditLog, staff, staffPreferences } from "../db/schema";
import { cachedTableView, readTableView } from "../preferences/table-views";
import { DEFAULT_TABLE_VIEWS } from "../schemas/preferences";

// A person's table view, saved through the action client as a direct POST would call it: their own only, validated,
// remembered across page loads, and not written into the audit trail.

let signedIn: SignedInStaff | null = null;
let database: Database;

vi.mock("../auth", () => ({
  currentStaff: async () => signedIn,
  sessionAccount: async () => signedIn && { ...signedIn, authSource: "password", passwordChangeRequired: false },
  clientAddress: () => "203.0.113.7",
}));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("../db/client", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getDb: async () => database,
}));

const people: SignedInStaff[] = [];

beforeAll(async () => {
  process.env.LOG_LEVEL = "silent";
  database = await openTestPglite();
  for (const role of ["viewer", "admin"] as const) {
    const [row] = await database.db
      .insert(staff)
      .values({ email: `${role}@prefs.test`, role })
      .returning();
    people.push({ id: row!.id, email: row!.email, name: null, role });
  }
}, 60_000);

afterAll(() => database?.close());

const { saveTableView } = await import("./preferences");

describe("saveTableView", () => {
  it("remembers each person's own columns and density, and leaves no audit row", async () => {
    const [viewer, admin] = people as [SignedInStaff, SignedInStaff];
    const { db } = database;
    expect(await readTableView(db, viewer.id, "links")).toEqual(DEFAULT_TABLE_VIEWS.links);
    const [before] = await db.select({ n: count() }).from(auditLog);

    signedIn = viewer;
    expect(
      (await saveTableView({ table: "links", hidden: ["provider", "link_tags"], density: "compact" }))?.data,
    ).toEqual({ saved: true });
    signedIn = admin;
    expect((await saveTableView({ table: "links", hidden: [], density: "comfortable" }))?.data).toEqual({
      saved: true,
    });
    signedIn = viewer;
    expect((await saveTableView({ table: "links", hidden: ["provider"], density: "compact" }))?.data).toEqual({
      saved: true,
    });

    expect(await readTableView(db, viewer.id, "links")).toEqual({
      table: "links",
      hidden: ["provider"],
      density: "compact",
    });
    expect(await readTableView(db, admin.id, "links")).toEqual({ table: "links", hidden: [], density: "comfortable" });
    expect(await db.select().from(staffPreferences).where(eq(staffPreferences.staffId, viewer.id))).toHaveLength(1);
    const [after] = await db.select({ n: count() }).from(auditLog);
    expect(after!.n).toBe(before!.n);
  });

  it("keeps a person's view for the page, and their own save shows on the next page at once", async () => {
    const [viewer] = people as [SignedInStaff];
    const { db } = database;
    signedIn = viewer;
    await saveTableView({ table: "links", hidden: ["provider"], density: "compact" });
    expect((await cachedTableView(db, viewer.id, "links")).hidden).toEqual(["provider"]);
    // Written behind this instance's back (another instance, say): the kept view stands for its few seconds.
    await db
      .update(staffPreferences)
      .set({ value: { table: "links", hidden: [], density: "compact" } })
      .where(eq(staffPreferences.staffId, viewer.id));
    expect((await cachedTableView(db, viewer.id, "links")).hidden).toEqual(["provider"]);
    await saveTableView({ table: "links", hidden: ["link_tags"], density: "comfortable" });
    expect(await cachedTableView(db, viewer.id, "links")).toEqual({
      table: "links",
      hidden: ["link_tags"],
      density: "comfortable",
    });
  });

  it("refuses nobody's save and input that names no column of the table, saving nothing", async () => {
    signedIn = null;
    expect((await saveTableView({ table: "links", hidden: [], density: "compact" }))?.serverError).toMatch(
      /Sign in again/,
    );
    signedIn = people[1]!;
    const bad = await saveTableView({ table: "links", hidden: ["link_id"], density: "compact" } as never);
    expect(bad?.validationErrors).toBeTruthy();
    const worse = await saveTableView({ table: "links", hidden: ["x".repeat(5000)], density: "tiny" } as never);
    expect(worse?.validationErrors).toBeTruthy();
    expect(await readTableView(database.db, people[1]!.id, "links")).toEqual({
      table: "links",
      hidden: [],
      density: "comfortable",
    });
  });

  it("falls back to the default when what is stored no longer fits the table", async () => {
    const [viewer] = people as [SignedInStaff];
    await database.db
      .update(staffPreferences)
      .set({ value: { table: "links", hidden: ["a_column_since_removed"], density: "compact" } })
      .where(eq(staffPreferences.staffId, viewer.id));
    expect(await readTableView(database.db, viewer.id, "links")).toEqual(DEFAULT_TABLE_VIEWS.links);
  });
});
