import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { withTestDatabases } from "../testing/databases";
import { NOW, seedLinksList, UNREAD } from "../testing/links-list-fixture";
import { readModelSummary } from "./read-model-summary";

const databases = withTestDatabases();

describe.each(databases)("read model summary on $kind", (target) => {
  let db: Db;
  beforeAll(async () => {
    db = target.database.db;
    await seedLinksList(db);
  });

  it("says how fresh and how big the read model is, and how many of its links were never read", async () => {
    expect(await readModelSummary(db)).toEqual({
      asOf: new Date(NOW.getTime() - 60_000),
      total: 40 + UNREAD.length,
      unread: UNREAD.length,
    });
  });
});
