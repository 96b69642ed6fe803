import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDeletedSlot, seedSkeletons } from "./seed-links";
import { DEFAULT_ANCHOR_DATE } from "./server";
import {
  expectError,
  first,
  fixtures,
  startSandbox,
  validationLocations,
  type Fixtures,
  type TestSandbox,
} from "./test-support";
import { linkShape, linksPageShape, transactionsPageShape } from "./wire-shapes";

let t: TestSandbox;
let seeded: Fixtures;
beforeAll(async () => {
  // Paging is tested over every link that is not deleted (the `all` listing); the upstream's own rule, active links
  // only, is links-listing.test.ts's.
  t = await startSandbox({ links: 1300, linksListing: "all" });
  seeded = await fixtures(t);
});
afterAll(() => t.close());

async function allPages(limit: number): Promise<{ link_id: string; created_at: string }[]> {
  const seen: { link_id: string; created_at: string }[] = [];
  let cursor = "";
  for (let page = 0; page < 100; page++) {
    const response = await t.api(
      "GET",
      `/links?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    expect(response.status).toBe(200);
    const body = linksPageShape.parse(response.json);
    seen.push(...body.links);
    if (!body.next_cursor) {
      expect(body.next_cursor).toBe("");
      return seen;
    }
    cursor = body.next_cursor;
  }
  throw new Error("paging did not end");
}

describe("GET /links", () => {
  it("pages through every link that is not deleted exactly once, newest first", async () => {
    const listed = await allPages(500);
    const ids = listed.map((link) => link.link_id);
    expect(new Set(ids).size).toBe(ids.length);
    const expected = seedSkeletons(1, 1300, Date.parse(`${DEFAULT_ANCHOR_DATE}T00:00:00Z`))
      .filter((skeleton) => !isDeletedSlot(skeleton.slot))
      .map((skeleton) => skeleton.id);
    expect(ids).toEqual(expected);
    for (const id of seeded.deleted ?? []) expect(ids).not.toContain(id);
    // Under `all`, error and half-finished links are listed too.
    expect(ids).toEqual(expect.arrayContaining([first(seeded, "connecting"), first(seeded, "error:auth_expired")]));
    const times = listed.map((link) => Date.parse(link.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(ids[0]).toMatch(/^mk_[1-9A-HJ-NP-Za-km-z]{22}$/);
  });

  it("defaults to 1000 links a page", async () => {
    const body = linksPageShape.parse((await t.api("GET", "/links")).json);
    expect(body.links).toHaveLength(1000);
    expect(body.next_cursor).not.toBe("");
  });

  it("keeps a cursor valid when new links appear while paging", async () => {
    const firstPage = linksPageShape.parse((await t.api("GET", "/links?limit=500")).json);
    await t.api("POST", "/links/import", { body: { customer_user: { id: "user_paging" }, institution_id: "chase" } });
    const rest = linksPageShape.parse((await t.api("GET", `/links?limit=5000&cursor=${firstPage.next_cursor}`)).json);
    const ids = [...firstPage.links, ...rest.links].map((link) => link.link_id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("refuses a limit outside 500–5000 and an unreadable cursor with 422 naming the parameter", async () => {
    for (const limit of ["499", "5001", "abc"]) {
      const response = await t.api("GET", `/links?limit=${limit}`);
      expectError(response, 422, "api_error.request.validation_failed");
      expect(validationLocations(response)).toEqual(["query.limit"]);
    }
    const response = await t.api("GET", "/links?cursor=garbage");
    expectError(response, 422, "api_error.request.validation_failed");
    expect(validationLocations(response)).toEqual(["query.cursor"]);
  });
});

describe("GET /links/{id}", () => {
  it("returns every field of the Link object", async () => {
    const response = await t.api("GET", `/links/${first(seeded, "plain")}`);
    expect(response.status).toBe(200);
    const link = linkShape.parse(response.json);
    expect(Object.keys(response.json as object)).toEqual(
      expect.arrayContaining([
        "link_id",
        "institution_id",
        "institution_name",
        "institution_avatar",
        "state",
        "error_code",
        "last_synced_at",
        "auth_expired_at",
        "provider",
        "link_tags",
        "webhook",
        "products",
        "available_products",
      ]),
    );
    expect(link.state).toBe("connected");
    expect(link.products.accounts?.refreshed_at).toBeTruthy();
  });

  it("shows error links with their error_code and product errors", async () => {
    const link = linkShape.parse((await t.api("GET", `/links/${first(seeded, "error:auth_expired")}`)).json);
    expect(link).toMatchObject({ state: "error", error_code: "auth_expired" });
    expect(link.auth_expired_at).toBeTruthy();
    expect(Object.values(link.products).some((product) => product.error_code === "auth_expired")).toBe(true);
  });

  it("answers an unknown id with 404 link_error.not_found", async () => {
    const body = expectError(await t.api("GET", "/links/mk_doesNotExist"), 404, "link_error.not_found");
    expect(body.error_message).toBe("Link not found.");
  });
});

describe("DELETE /links/{id}", () => {
  it("deletes with 204; the link stays readable as deleted, leaves the listing, and other calls answer 410", async () => {
    const id = seeded.plain?.[5] ?? "";
    const deleted = await t.api("DELETE", `/links/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    const link = linkShape.parse((await t.api("GET", `/links/${id}`)).json);
    expect(link.state).toBe("deleted");
    expect((await allPages(5000)).map((entry) => entry.link_id)).not.toContain(id);
    expectError(await t.api("GET", `/links/${id}/transactions`), 410, "link_error.deleted");
    expectError(await t.api("DELETE", `/links/${id}`), 410, "link_error.deleted");
    expectError(await t.api("DELETE", "/links/mk_doesNotExist"), 404, "link_error.not_found");
  });

  it("serves seeded deleted links as deleted", async () => {
    const link = linkShape.parse((await t.api("GET", `/links/${first(seeded, "deleted")}`)).json);
    expect(link.state).toBe("deleted");
  });
});

describe("determinism", () => {
  it("gives the same links and transactions for the same seed, and different ones for another seed", async () => {
    const again = await startSandbox({ links: 1300 });
    const other = await startSandbox({ links: 1300, seed: 2 });
    try {
      const ids = [first(seeded, "plain"), first(seeded, "error:no_accounts"), first(seeded, "hostile_name")];
      // Logos are served by each sandbox at its own address: compare everything else.
      const portless = (from: TestSandbox, body: unknown) =>
        JSON.parse(JSON.stringify(body).replaceAll(from.base, "<sandbox>")) as unknown;
      for (const id of ids) {
        expect(portless(again, (await again.api("GET", `/links/${id}`)).json)).toEqual(
          portless(t, (await t.api("GET", `/links/${id}`)).json),
        );
        const path = `/links/${id}/transactions?start_date=1900-01-01&size=1000`;
        const mine = portless(t, transactionsPageShape.parse((await t.api("GET", path)).json));
        expect(portless(again, transactionsPageShape.parse((await again.api("GET", path)).json))).toEqual(mine);
      }
      expect((await other.api("GET", `/links/${ids[0]}`)).status).toBe(404);
    } finally {
      await again.close();
      await other.close();
    }
  });
});
