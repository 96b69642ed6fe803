import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedLink, seedSkeletons } from "./seed-links";
import { DEFAULT_ANCHOR_DATE } from "./server";
import { expectError, first, fixtures, startSandbox, type Fixtures, type TestSandbox } from "./test-support";
import { linkShape, userLinksShape } from "./wire-shapes";

const LINKS = 300;

let t: TestSandbox;
let seeded: Fixtures;
beforeAll(async () => {
  t = await startSandbox({ links: LINKS });
  seeded = await fixtures(t);
});
afterAll(() => t.close());

async function userLinks(userId: string) {
  const response = await t.api("GET", `/users/${encodeURIComponent(userId)}/links`);
  expect(response.status).toBe(200);
  return userLinksShape.parse(response.json).links;
}

/** The seeded links of each customer user, found the slow way: every seeded record generated. */
function seededByUser(): Map<string, string[]> {
  const anchorMs = Date.parse(`${DEFAULT_ANCHOR_DATE}T00:00:00Z`);
  const byUser = new Map<string, string[]>();
  for (const skeleton of seedSkeletons(1, LINKS, anchorMs)) {
    const user = seedLink(1, skeleton, anchorMs, LINKS).customerUserId ?? "";
    byUser.set(user, [...(byUser.get(user) ?? []), skeleton.id]);
  }
  return byUser;
}

const importFor = (userId: string, extra: Record<string, unknown> = {}) =>
  t.api("POST", "/links/import", { body: { customer_user: { id: userId }, institution_id: "chase", ...extra } });

describe("GET /users/{id}/links", () => {
  it("maps each of a seeded user's links by id, in every state, as GET /links/{id} serves it", async () => {
    const expected = seededByUser();
    for (const role of ["plain", "error:auth_expired", "connecting", "deleted"]) {
      const linkId = first(seeded, role);
      const user = [...expected].find(([, ids]) => ids.includes(linkId))?.[0] ?? "";
      const links = await userLinks(user);
      expect(Object.keys(links).sort()).toEqual([...(expected.get(user) ?? [])].sort());
      for (const [id, link] of Object.entries(links)) {
        expect(link.link_id).toBe(id);
        expect(link).toEqual(linkShape.parse((await t.api("GET", `/links/${id}`)).json));
      }
    }
    // A deleted seeded link is there, as deleted.
    const deletedId = first(seeded, "deleted");
    const owner = [...expected].find(([, ids]) => ids.includes(deletedId))?.[0] ?? "";
    expect((await userLinks(owner))[deletedId]?.state).toBe("deleted");
  });

  it("shows an imported link under the import's customer_user.id, disconnected (error, auth_expired)", async () => {
    const imported = linkShape.parse((await importFor("user_links_import")).json);
    const connected = linkShape.parse(
      (await importFor("user_links_import", { provider_data: { user_id: "u-1" } })).json,
    );
    const links = await userLinks("user_links_import");
    expect(Object.keys(links).sort()).toEqual([imported.link_id, connected.link_id].sort());
    expect(links[imported.link_id]).toMatchObject({ state: "error", error_code: "auth_expired" });
    expect(links[connected.link_id]?.state).toBe("connected");
    // Joining a seeded user: the import adds to that user's seeded links.
    const before = Object.keys(await userLinks("user_1"));
    const joined = linkShape.parse((await importFor("user_1")).json);
    expect(Object.keys(await userLinks("user_1")).sort()).toEqual([...before, joined.link_id].sort());
  });

  it("keeps a deleted link, as deleted", async () => {
    const imported = linkShape.parse((await importFor("user_links_delete")).json);
    expect((await t.api("DELETE", `/links/${imported.link_id}`)).status).toBe(204);
    const links = await userLinks("user_links_delete");
    expect(links[imported.link_id]?.state).toBe("deleted");
  });

  it("shows a link session's link from the moment the end user completes it", async () => {
    const session = await t.api("POST", "/link-session", {
      body: { customer_user: { id: "user_links_session" }, redirect_uri: "https://x.example/cb" },
    });
    const token = (session.json as { link_session_token: string }).link_session_token;
    const completed = await t.raw("POST", `/_sandbox/link-sessions/${token}/complete`, {
      body: "{}",
      headers: { "Content-Type": "application/json" },
    });
    const linkId = (completed.json as { link_id: string }).link_id;
    expect((await userLinks("user_links_session"))[linkId]?.state).toBe("awaiting_token_exchange");
  });

  it("answers an unknown user with an empty map, not 404", async () => {
    expect(await userLinks("user_nobody")).toEqual({});
    expect(await userLinks("a user/with odd characters")).toEqual({});
  });

  it("answers 401 without credentials, like every API route", async () => {
    expectError(await t.raw("GET", "/users/user_1/links"), 401, "api_error.auth.unauthorized");
  });

  it("forgets runtime links on reset", async () => {
    await importFor("user_links_reset");
    expect(Object.keys(await userLinks("user_links_reset"))).toHaveLength(1);
    await t.raw("POST", "/_sandbox/reset");
    expect(await userLinks("user_links_reset")).toEqual({});
    expect(Object.keys(await userLinks("user_1")).sort()).toEqual([...(seededByUser().get("user_1") ?? [])].sort());
  });
});

describe("GET /users/{id}/links and rate limits", () => {
  it("is not rate limited: the spec's Limits table has no row for it", async () => {
    const limited = await startSandbox({ links: 64, rateLimits: true });
    try {
      for (let i = 0; i < 40; i++) expect((await limited.api("GET", "/users/user_1/links")).status).toBe(200);
      expect(
        limited.sandbox.state.limiter.counters().filter((counter) => counter.endpoint === "GET /users/{id}/links"),
      ).toEqual([]);
      expect(limited.sandbox.state.stats.snapshot().byEndpoint["GET /users/{id}/links"]?.requests).toBe(40);
    } finally {
      await limited.close();
    }
  });
});
