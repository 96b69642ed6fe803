import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { INSTITUTIONS } from "./catalog";
import { expectError, startSandbox, validationLocations, type TestSandbox } from "./test-support";
import { rulesFor } from "./limits";
import { institutionShape, institutionsPageShape } from "./wire-shapes";

let t: TestSandbox;
beforeAll(async () => {
  t = await startSandbox({ links: 10 });
});
afterAll(() => t.close());

describe("GET /institutions", () => {
  it("pages through every institution once, 50 by default, with the plural `cursors`", async () => {
    const firstPage = institutionsPageShape.parse((await t.api("GET", "/institutions")).json);
    expect(firstPage.institutions).toHaveLength(Math.min(50, INSTITUTIONS.length));
    const seen: string[] = [];
    let cursor = "";
    for (let page = 0; page < 50; page++) {
      const response = await t.api("GET", `/institutions?limit=4${cursor ? `&cursor=${cursor}` : ""}`);
      expect(response.status).toBe(200);
      const body = institutionsPageShape.parse(response.json);
      expect(Object.keys(response.json as object)).toEqual(["institutions", "cursors"]);
      seen.push(...body.institutions.map((institution) => institution.institution_id));
      if (!body.cursors?.next) break;
      cursor = body.cursors.next;
    }
    expect(seen).toEqual(INSTITUTIONS.map((institution) => institution.institution_id));
  });

  it("matches a name by its start, whatever the case, and keeps to featured ones when asked", async () => {
    const byName = institutionsPageShape.parse((await t.api("GET", "/institutions?name=bank%20of")).json);
    expect(byName.institutions.map((institution) => institution.name)).toEqual(["Bank of America"]);
    const featured = institutionsPageShape.parse((await t.api("GET", "/institutions?featured=true&limit=1000")).json);
    expect(featured.institutions.length).toBeGreaterThan(0);
    expect(featured.institutions.every((institution) => institution.is_featured)).toBe(true);
  });

  it("refuses a limit outside 1–1000, a bad featured flag and an unknown cursor with 422 naming them", async () => {
    const response = await t.api("GET", "/institutions?limit=0&featured=maybe&cursor=nope");
    expectError(response, 422, "api_error.request.validation_failed");
    expect(validationLocations(response)).toEqual(["query.limit", "query.featured", "query.cursor"]);
    expectError(await t.api("GET", "/institutions?limit=1001"), 422, "api_error.request.validation_failed");
    expectError(await t.raw("GET", "/institutions"), 401, "api_error.auth.unauthorized");
  });
});

describe("GET /institutions/{institution_id}", () => {
  it("returns every field of the Institution object, by id or by a provider alias", async () => {
    const response = await t.api("GET", "/institutions/chase");
    expect(response.status).toBe(200);
    expect(Object.keys(response.json as object).sort()).toEqual([
      "color",
      "color_dark",
      "country",
      "domain",
      "institution_id",
      "institution_id_aliases",
      "is_featured",
      "name",
    ]);
    const chase = institutionShape.parse(response.json);
    expect(chase).toMatchObject({ institution_id: "chase", name: "Chase", country: "US", is_featured: true });
    expect(chase.institution_id_aliases).toContain("mx.chase");
    expect(institutionShape.parse((await t.api("GET", "/institutions/mx.chase")).json).institution_id).toBe("chase");
    expect(institutionShape.parse((await t.api("GET", "/institutions/monzo")).json).country).toBe("GB");
  });

  it("answers 404 institution_error.not_found for an unknown id", async () => {
    const body = expectError(await t.api("GET", "/institutions/no_such_bank"), 404, "institution_error.not_found");
    expect(body.error_message).toBe("Institution not found");
  });
});

describe("institutions rate limits", () => {
  let limited: TestSandbox;
  beforeAll(async () => {
    limited = await startSandbox({ links: 10, rateLimits: true, clock: true });
  });
  beforeEach(async () => {
    await limited.raw("POST", "/_sandbox/reset");
  });
  afterAll(() => limited.close());

  for (const [endpoint, path] of [
    ["GET /institutions", "/institutions"],
    ["GET /institutions/{institution_id}", "/institutions/chase"],
  ] as const) {
    it(`limits ${endpoint} per app as the spec's table says`, async () => {
      const perApp = rulesFor(endpoint).find((rule) => rule.scope === "app")!.limitPerMinute;
      for (let i = 0; i < perApp; i++) expect((await limited.api("GET", path)).status).toBe(200);
      expectError(await limited.api("GET", path), 429, "api_error.rate_limit_exceeded");
    });
  }
});
