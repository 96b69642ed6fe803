import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSandboxEnv } from "./env";
import { isDeletedSlot, roleOfSlot, seedSkeletons } from "./seed-links";
import { createSandbox, DEFAULT_ANCHOR_DATE } from "./server";
import {
  expectError,
  first,
  fixtures,
  startSandbox,
  validationLocations,
  type Fixtures,
  type TestSandbox,
} from "./test-support";
import { linkShape, linksPageShape } from "./wire-shapes";

// GET /links under the listing switch: `active` by default, the upstream's rule (connected and refreshed at least once,
// upstream-facts §2), or `all` (every link not deleted). And what stands for the product's back end beside it: every
// link id the sandbox holds (GET /_sandbox/back-end/link-ids), and seeded links whose webhook reaches a dashboard.

const LINKS = 1300;
const INACTIVE_ROLES = new Set(["error", "connecting", "awaiting_token_exchange", "deleted"]);

let t: TestSandbox;
let seeded: Fixtures;
beforeAll(async () => {
  t = await startSandbox({ links: LINKS });
  seeded = await fixtures(t);
});
afterAll(() => t.close());

async function allPages(sandbox: TestSandbox, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor = "";
  for (let page = 0; page < 100; page++) {
    const response = await sandbox.api(
      "GET",
      `/links?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    expect(response.status).toBe(200);
    const body = linksPageShape.parse(response.json);
    expect(body.links.length).toBeLessThanOrEqual(limit);
    ids.push(...body.links.map((link) => link.link_id));
    if (!body.next_cursor) {
      expect(body.next_cursor).toBe("");
      return ids;
    }
    expect(body.links).toHaveLength(limit);
    cursor = body.next_cursor;
  }
  throw new Error("paging did not end");
}

const skeletons = () => seedSkeletons(1, LINKS, Date.parse(`${DEFAULT_ANCHOR_DATE}T00:00:00Z`));
const isActive = (link: { state: string; products: Record<string, { refreshed_at?: string | null } | undefined> }) =>
  link.state === "connected" && Object.values(link.products).some((status) => Boolean(status?.refreshed_at));

const setListing = (sandbox: TestSandbox, linksListing: string) =>
  sandbox.raw("POST", "/_sandbox/settings", {
    body: JSON.stringify({ linksListing }),
    headers: { "Content-Type": "application/json" },
  });

describe("GET /links, active listing", () => {
  it("pages through the active seeded links exactly once, newest first, losing none at the page edges", async () => {
    // Before any link is read: the listing must judge unread seeded links as their records will say.
    const expected = skeletons()
      .filter((skeleton) => !INACTIVE_ROLES.has(roleOfSlot(skeleton.slot).kind))
      .map((skeleton) => skeleton.id);
    expect(expected.length).toBeGreaterThan(500);
    for (const limit of [500, 501, 5000]) expect(await allPages(t, limit)).toEqual(expected);
  });

  it("lists exactly the links that are connected and were refreshed at least once", async () => {
    const small = await startSandbox({ links: 200 });
    try {
      const listed = new Set(await allPages(small, 500));
      for (const skeleton of seedSkeletons(1, 200, Date.parse(`${DEFAULT_ANCHOR_DATE}T00:00:00Z`))) {
        const link = linkShape.parse((await small.api("GET", `/links/${skeleton.id}`)).json);
        expect({ id: skeleton.id, listed: listed.has(skeleton.id) }).toEqual({
          id: skeleton.id,
          listed: isActive(link),
        });
      }
    } finally {
      await small.close();
    }
  });

  it("leaves out an imported link, links in error, connecting or awaiting exchange, and deleted links; `all` lists all but the deleted", async () => {
    const imported = linkShape.parse(
      (
        await t.api("POST", "/links/import", {
          body: { customer_user: { id: "user_listing" }, institution_id: "chase" },
        })
      ).json,
    );
    expect(imported).toMatchObject({ state: "error", error_code: "auth_expired" });
    const withCredentials = linkShape.parse(
      (
        await t.api("POST", "/links/import", {
          body: { customer_user: { id: "user_listing" }, institution_id: "chase", provider_data: { user_id: "u-1" } },
        })
      ).json,
    );
    const deletedNow = seeded.plain?.[3] ?? "";
    expect((await t.api("DELETE", `/links/${deletedNow}`)).status).toBe(204);
    const left = {
      imported: imported.link_id,
      error: first(seeded, "error:institution_error"),
      authExpired: first(seeded, "error:auth_expired"),
      connecting: first(seeded, "connecting"),
      awaiting: first(seeded, "awaiting_token_exchange"),
      deletedSeed: first(seeded, "deleted"),
      deletedNow,
    };

    const active = await allPages(t, 5000);
    for (const id of Object.values(left)) expect(active).not.toContain(id);
    expect(active).toContain(withCredentials.link_id);
    expect(active).toContain(first(seeded, "plain"));

    expect((await setListing(t, "all")).json).toEqual({ linksListing: "all", redirectUris: null });
    try {
      const all = await allPages(t, 500);
      expect(new Set(all).size).toBe(all.length);
      const { deletedSeed, deletedNow: gone, ...notDeleted } = left;
      expect(all).toEqual(expect.arrayContaining([...Object.values(notDeleted), withCredentials.link_id, ...active]));
      expect(all).not.toContain(deletedSeed);
      expect(all).not.toContain(gone);
    } finally {
      await setListing(t, "active");
    }
  });

  it("keeps a cursor valid when a link on the next page stops being active", async () => {
    const firstPage = linksPageShape.parse((await t.api("GET", "/links?limit=500")).json);
    const before = await allPages(t, 5000);
    const victim = before[600] ?? "";
    expect((await t.api("DELETE", `/links/${victim}`)).status).toBe(204);
    const rest = linksPageShape.parse(
      (await t.api("GET", `/links?limit=5000&cursor=${encodeURIComponent(firstPage.next_cursor ?? "")}`)).json,
    );
    expect([...firstPage.links, ...rest.links].map((link) => link.link_id)).toEqual(
      before.filter((id) => id !== victim),
    );
  });
});

describe("the listing setting", () => {
  it("is `active` unless asked otherwise, is shown and switched at /_sandbox/settings without credentials, and a reset restores the configured value", async () => {
    const s = await startSandbox({ links: 64 });
    try {
      expect((await s.raw("GET", "/_sandbox/settings")).json).toEqual({ linksListing: "active", redirectUris: null });
      const active = await allPages(s, 500);
      expect((await setListing(s, "all")).json).toEqual({ linksListing: "all", redirectUris: null });
      const everything = await allPages(s, 500);
      expect(active.length).toBeLessThan(everything.length);
      expect(everything).toEqual(expect.arrayContaining(active));
      expect((await s.raw("GET", "/_sandbox/settings")).json).toEqual({ linksListing: "all", redirectUris: null });
      expect((await s.raw("POST", "/_sandbox/reset")).status).toBe(200);
      expect((await s.raw("GET", "/_sandbox/settings")).json).toEqual({ linksListing: "active", redirectUris: null });
      expect(await allPages(s, 500)).toEqual(active);
      const notDeleted = seedSkeletons(1, 64, Date.parse(`${DEFAULT_ANCHOR_DATE}T00:00:00Z`)).filter(
        (skeleton) => !isDeletedSlot(skeleton.slot),
      );
      expect(everything).toEqual(notDeleted.map((skeleton) => skeleton.id));
    } finally {
      await s.close();
    }
  });

  it("refuses an unknown listing or setting with 422 naming the field", async () => {
    const response = await setListing(t, "connected");
    expectError(response, 422, "api_error.request.validation_failed");
    expect(validationLocations(response)).toEqual(["body.linksListing"]);
    const unknown = await t.raw("POST", "/_sandbox/settings", {
      body: JSON.stringify({ listing: "all" }),
      headers: { "Content-Type": "application/json" },
    });
    expectError(unknown, 422, "api_error.request.validation_failed");
    expect((await t.raw("GET", "/_sandbox/settings")).json).toEqual({ linksListing: "active", redirectUris: null });
  });

  it("comes from SANDBOX_LINKS_LISTING (a bad value names the variable) or createSandbox({ linksListing })", () => {
    const parsed = parseSandboxEnv({ SANDBOX_LINKS_LISTING: "active" });
    expect(parsed.ok && parsed.config.options.linksListing).toBe("active");
    const unset = parseSandboxEnv({});
    expect(unset.ok && unset.config.options.linksListing).toBeUndefined();
    expect(createSandbox().state.settings).toEqual({ linksListing: "active", redirectUris: null });
    expect(createSandbox({ linksListing: "all" }).state.settings).toEqual({ linksListing: "all", redirectUris: null });
    const bad = parseSandboxEnv({ SANDBOX_LINKS_LISTING: "some" });
    expect(bad.ok).toBe(false);
    expect(bad.ok ? [] : bad.errors).toEqual([expect.stringContaining("SANDBOX_LINKS_LISTING")]);
    expect(() => createSandbox({ linksListing: "some" as "all" })).toThrow(RangeError);
  });
});

describe("the product's back end", () => {
  it("knows every link id the sandbox holds, oldest first: the ones the listing leaves out and deleted ones too", async () => {
    const s = await startSandbox({ links: 64 });
    try {
      const imported = linkShape.parse(
        (
          await s.api("POST", "/links/import", {
            body: { customer_user: { id: "user_backend" }, institution_id: "chase" },
          })
        ).json,
      );
      const deleted = first(await fixtures(s), "plain");
      expect((await s.api("DELETE", `/links/${deleted}`)).status).toBe(204);
      const response = await s.raw("GET", "/_sandbox/back-end/link-ids");
      expect(response.status).toBe(200);
      const { link_ids } = response.json as { link_ids: string[] };
      const seededOldestFirst = seedSkeletons(1, 64, Date.parse(`${DEFAULT_ANCHOR_DATE}T00:00:00Z`))
        .map((skeleton) => skeleton.id)
        .reverse();
      // The import is the newest link: last.
      expect(link_ids).toEqual([...seededOldestFirst, imported.link_id]);
      const listed = await allPages(s, 500);
      expect(listed).not.toContain(imported.link_id);
      expect(listed).not.toContain(deleted);
      expect(link_ids).toEqual(expect.arrayContaining(listed));
      expect(link_ids.length - listed.length).toBeGreaterThan(10);
    } finally {
      await s.close();
    }
  });

  it("gives every seeded link the webhook SANDBOX_SEED_WEBHOOK_URL names, and changes nothing else of the link", async () => {
    const url = "http://127.0.0.1:3999/api/webhooks/upstream";
    const plain = await startSandbox({ links: 64 });
    const hooked = await startSandbox({ links: 64, seedWebhookUrl: url });
    try {
      const plainWebhooks = new Set<string | null>();
      const { link_ids } = (await plain.raw("GET", "/_sandbox/back-end/link-ids")).json as { link_ids: string[] };
      expect(link_ids).toHaveLength(64);
      for (const id of link_ids) {
        const before = linkShape.parse((await plain.api("GET", `/links/${id}`)).json);
        const after = linkShape.parse((await hooked.api("GET", `/links/${id}`)).json);
        plainWebhooks.add(before.webhook ?? null);
        expect(after).toEqual({ ...before, webhook: url, institution_avatar: after.institution_avatar });
        expect(after.institution_avatar?.replace(hooked.base, "")).toBe(
          before.institution_avatar?.replace(plain.base, ""),
        );
      }
      // Without the option: a display address on some links (never contacted), none on the others.
      expect(plainWebhooks.has(null)).toBe(true);
      expect([...plainWebhooks].some((webhook) => webhook?.startsWith("https://hooks.acme.example/"))).toBe(true);
    } finally {
      await Promise.all([plain.close(), hooked.close()]);
    }
    expect(parseSandboxEnv({ SANDBOX_SEED_WEBHOOK_URL: url })).toMatchObject({
      ok: true,
      config: { options: { seedWebhookUrl: url } },
    });
    const bad = parseSandboxEnv({ SANDBOX_SEED_WEBHOOK_URL: "ftp://example.test/hook" });
    expect(bad.ok ? [] : bad.errors).toEqual([expect.stringContaining("SANDBOX_SEED_WEBHOOK_URL")]);
    expect(() => createSandbox({ seedWebhookUrl: "not a url" })).toThrow(RangeError);
  });
});
