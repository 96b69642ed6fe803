import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { SessionAccount } from "../auth";
import { sessionStands } from "../auth/session";
import type { Database } from "../db/client";
import { staff } from "../db/schema";
import { withTestDatabases } from "../testing/databases";

// The Staff page's disable and enable, called as the page (or a direct POST) calls them, by a signed-in admin.

let database: Database;
const admin: SessionAccount = {
  id: "00000000-0000-4000-8000-00000000ad01",
  email: "admin@example.com",
  name: null,
  role: "admin",
  authSource: "password",
  passwordChangeRequired: false,
};

vi.mock("../auth", () => ({
  sessionAccount: async () => admin,
  currentStaff: async () => admin,
  clientAddress: () => "203.0.113.9",
}));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
vi.mock("../db/client", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getDb: async () => database,
}));

const { disableStaff, enableStaff } = await import("./staff");
const databases = withTestDatabases();
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

describe.each(databases)("disableStaff and enableStaff on $kind", (target) => {
  beforeEach(() => {
    database = target.database;
    Object.assign(process.env, { LOG_LEVEL: "silent" });
  });

  const rowOf = async (id: string) => (await database.db.select().from(staff).where(eq(staff.id, id)))[0]!;

  it("end the account's sessions for good: a session from before the disable is refused after the enable", async () => {
    const [row] = await database.db
      .insert(staff)
      .values({ email: `fay.${target.kind}@example.com`, role: "admin" })
      .returning();
    const id = row!.id;
    const signedInBefore = Date.now();
    await pause();
    expect(sessionStands(await rowOf(id), signedInBefore, { demoMode: false })).toBe(true);

    expect((await disableStaff({ staffId: id }))?.data).toEqual({ id });
    expect(sessionStands(await rowOf(id), signedInBefore, { demoMode: false })).toBe(false);
    expect((await enableStaff({ staffId: id }))?.data).toEqual({ id });
    expect((await rowOf(id)).disabledAt).toBeNull();
    expect(sessionStands(await rowOf(id), signedInBefore, { demoMode: false })).toBe(false);

    await pause();
    expect(sessionStands(await rowOf(id), Date.now(), { demoMode: false })).toBe(true);
  });

  it("keep the first disable date when disabling twice, and leave an enabled account's sessions alone", async () => {
    const [row] = await database.db
      .insert(staff)
      .values({ email: `gus.${target.kind}@example.com`, role: "ops" })
      .returning();
    const id = row!.id;
    await disableStaff({ staffId: id });
    const first = (await rowOf(id)).disabledAt;
    await pause();
    await disableStaff({ staffId: id });
    expect((await rowOf(id)).disabledAt).toEqual(first);

    await enableStaff({ staffId: id });
    await pause();
    const signedIn = Date.now();
    await enableStaff({ staffId: id });
    expect(sessionStands(await rowOf(id), signedIn, { demoMode: false })).toBe(true);
  });
});
