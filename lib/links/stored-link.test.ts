import { beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { links } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { wireLink } from "../testing/wire-fixtures";
import type { WireLink } from "../upstream/schemas";
import { recordLinks } from "./read-model";
import { storedLink } from "./stored-link";

const databases = withTestDatabases();

const NOW = new Date("2026-11-20T12:00:00.000Z");
const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY_MS).toISOString();

let serial = 0;
/** A link refreshed `refreshedDaysAgo` days before NOW (every product), with a unique id. */
function link(overrides: Partial<WireLink> = {}, refreshedDaysAgo = 0): WireLink {
  const at = daysAgo(refreshedDaysAgo);
  return wireLink({
    link_id: `mk_health_${++serial}`,
    products: { accounts: { refreshed_at: at }, transactions: { refreshed_at: at } },
    ...overrides,
  });
}

describe.each(databases)("$kind", (target) => {
  let db: Db;
  beforeEach(async () => {
    db = target.database.db;
    // Each test file has databases of its own: emptying these tables touches no other test.
    await db.delete(links);
  });

  describe("storedLink", () => {
    it("returns the last-read Link object with when it was read, or null for an unknown link", async () => {
      const deleted = link({ state: "deleted" });
      await recordLinks(db, [deleted], new Date(NOW.getTime() - DAY_MS));
      await recordLinks(db, [deleted], NOW);
      const stored = await storedLink(db, deleted.link_id);
      expect(stored).toMatchObject({
        linkId: deleted.link_id,
        link: deleted,
        seenAt: NOW,
        deletedSeenAt: new Date(NOW.getTime() - DAY_MS),
      });
      expect(await storedLink(db, "mk_never_seen")).toBeNull();
    });

    it("gives no Link object for a link only listed, or a copy that no longer matches the wire schema", async () => {
      await db.insert(links).values([
        { linkId: "mk_listed", listedAt: NOW },
        { linkId: "mk_odd_copy", raw: { link_id: "mk_odd_copy", state: "teleported" }, seenAt: NOW },
      ]);
      expect(await storedLink(db, "mk_listed")).toMatchObject({ link: null, seenAt: null, listedAt: NOW });
      expect(await storedLink(db, "mk_odd_copy")).toMatchObject({ link: null, seenAt: NOW });
    });
  });
});
