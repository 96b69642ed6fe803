import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { parseCsv } from "../http/csv";
import { withTestDatabases } from "../testing/databases";
import { allPages, daysAgo, NOW, seedLinksList } from "../testing/links-list-fixture";
import type { LinkListParams } from "../schemas/links";
import { wireLink } from "../testing/wire-fixtures";
import { linkSchema } from "../upstream/schemas";
import { LINKS_CSV_HEADER, streamLinksCsv } from "./list-csv";
import { recordLinks } from "./read-model";

const databases = withTestDatabases();

async function csvOf(db: Db, params: LinkListParams, batchSize?: number): Promise<string[][]> {
  let text = "";
  for await (const chunk of streamLinksCsv(db, params, { batchSize, now: NOW })) text += chunk;
  return parseCsv(text);
}

describe.each(databases)("links CSV export on $kind", (target) => {
  let db: Db;
  beforeAll(async () => {
    db = target.database.db;
    await seedLinksList(db);
  });

  it("exports exactly the filtered view, in its order, across keyset batches", async () => {
    const views: LinkListParams[] = [
      {},
      { sort: "state", dir: "asc" },
      { sort: "error_code", dir: "desc" },
      { sort: "institution_name" },
      { sort: "last_refreshed_at", dir: "asc", stale: 5 },
      { sort: "created_at", dir: "asc" },
      { sort: "link_id", dir: "desc", q: "lk_0" },
      { state: "error", institution: "wells", page: 2 },
    ];
    for (const params of views) {
      const { rows } = await allPages(db, { ...params, page: undefined }, 6);
      for (const batchSize of [3, 1000]) {
        const [header, ...records] = await csvOf(db, params, batchSize);
        expect(header).toEqual(LINKS_CSV_HEADER);
        expect(
          records.map((r) => r[0]),
          `${JSON.stringify(params)} in batches of ${batchSize}`,
        ).toEqual(rows.map((r) => r.linkId));
      }
    }
  });

  it("writes each CSV field as text a spreadsheet will not run", async () => {
    const [header, ...records] = await csvOf(db, { q: "lk_003" });
    const record = Object.fromEntries(header!.map((name, i) => [name, records[0]![i]]));
    expect(records).toHaveLength(1);
    expect(record).toEqual({
      link_id: "lk_003",
      institution: "'=Ally",
      institution_id: "ally",
      state: "error",
      error_code: "institution_error",
      provider: "plaid",
      products: `accounts:${daysAgo(2)};transactions:unavailable not_supported`,
      product_error_codes: "",
      link_tags: "vip",
      last_refreshed_at: daysAgo(2),
      created_at: daysAgo(29),
      seen_at: new Date(NOW.getTime() - 60_000).toISOString(),
      learned_from: "upstream_answer",
      learned_at: new Date(NOW.getTime() - 60_000).toISOString(),
      not_known_to_linkdesk: "",
    });
    const [, tagged] = await csvOf(db, { q: "lk_004" });
    expect(tagged![LINKS_CSV_HEADER.indexOf("link_tags")]).toBe("semi colon;=cmd");
    const [, failing] = await csvOf(db, { q: "lk_006" });
    expect(failing![LINKS_CSV_HEADER.indexOf("products")]).toBe(`accounts:${daysAgo(4)};transactions:error timeout`);
  });

  it("exports a link whose values the upstream added since, filtered by them and saying which they are", async () => {
    await recordLinks(
      db,
      [
        linkSchema.parse({
          ...wireLink({ link_id: "lk_drift", state: "error", error_code: "consent_revoked", provider: "truelayer" }),
          products: { payment_initiation: { refreshed_at: null, error_code: "consent_expired" } },
        }),
      ],
      NOW,
    );
    const [header, ...records] = await csvOf(db, { error_code: "consent_revoked" });
    expect(records).toHaveLength(1);
    const record = Object.fromEntries(header!.map((name, i) => [name, records[0]![i]]));
    expect(record).toMatchObject({
      link_id: "lk_drift",
      error_code: "consent_revoked",
      provider: "truelayer",
      not_known_to_linkdesk:
        "error_code=consent_revoked;provider=truelayer;product=payment_initiation;product_error=consent_expired",
    });
  });
});
