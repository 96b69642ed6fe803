import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { links } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { wireLink } from "../testing/wire-fixtures";
import { recordLinks } from "./read-model";

const databases = withTestDatabases();

describe.each(databases)("read model on $kind", (target) => {
  const row = async (id: string) => (await target.database.db.select().from(links).where(eq(links.linkId, id)))[0];

  it("derives what the list filters on from the Link object", async () => {
    await recordLinks(target.database.db, [
      wireLink({
        link_id: "mk_derive",
        state: "error",
        error_code: "institution_error",
        link_tags: ["team:retail", "plan:pro"],
        products: {
          accounts: { refreshed_at: "2026-11-18T08:00:00Z", error_code: "rate_limit" },
          transactions: { refreshed_at: "2026-11-19T09:30:00Z", error_code: "timeout" },
          identity: { unavailable: "not supported by the institution" },
        },
      }),
    ]);
    expect(await row("mk_derive")).toMatchObject({
      state: "error",
      errorCode: "institution_error",
      linkTags: ["team:retail", "plan:pro"],
      productErrorCodes: ["rate_limit", "timeout"],
      lastRefreshedAt: new Date("2026-11-19T09:30:00Z"),
      deletedSeenAt: null,
    });
  });

  it("keeps the first time a link was seen deleted, and forgets it if the link comes back", async () => {
    const first = new Date("2026-11-01T00:00:00Z");
    await recordLinks(target.database.db, [wireLink({ link_id: "mk_deleted", state: "deleted" })], first);
    await recordLinks(
      target.database.db,
      [wireLink({ link_id: "mk_deleted", state: "deleted" })],
      new Date("2026-11-10T00:00:00Z"),
    );
    expect((await row("mk_deleted"))?.deletedSeenAt).toEqual(first);
    await recordLinks(target.database.db, [wireLink({ link_id: "mk_deleted", state: "connected" })]);
    expect((await row("mk_deleted"))?.deletedSeenAt).toBeNull();
  });

  it("updates a link in place with the latest answer", async () => {
    await recordLinks(target.database.db, [wireLink({ link_id: "mk_update", state: "connected" })]);
    await recordLinks(target.database.db, [
      wireLink({ link_id: "mk_update", state: "error", error_code: "auth_expired" }),
    ]);
    expect(await row("mk_update")).toMatchObject({ state: "error", errorCode: "auth_expired" });
  });
});
