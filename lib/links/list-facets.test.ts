import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { withTestDatabases } from "../testing/databases";
import { seedLinksList } from "../testing/links-list-fixture";
import { facetOptions } from "./list-facets";

const databases = withTestDatabases();

describe.each(databases)("links filter options on $kind", (target) => {
  let db: Db;
  beforeAll(async () => {
    db = target.database.db;
    await seedLinksList(db);
  });

  it("offers the filter options with counts, most used first", async () => {
    const facets = await facetOptions(db);
    expect(facets.institutions).toEqual(
      [
        { id: "chase", name: "Chase", count: 10 },
        { id: "ally", name: "=Ally", count: 10 },
        { id: "boa", name: "Bank of America", count: 10 },
        { id: "wells", name: "Wells Fargo", count: 10 },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(facets.providers.map((p) => p.value).sort()).toEqual(["finicity", "mx", "plaid"]);
    expect(facets.productErrors.map((p) => p.value).sort()).toEqual(["rate_limit", "timeout"]);
    expect(facets.tags[0]).toEqual({ value: "vip", count: 16 });
    expect(facets.tags.map((t) => t.value).sort()).toEqual(["=cmd", "semi;colon", "team:retail", "team:sme", "vip"]);
    expect((await facetOptions(db, { limit: 2 })).tags).toHaveLength(2);
  });
});
