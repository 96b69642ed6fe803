import { eq, inArray, like } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSandbox, type TestSandbox } from "../../sandbox/test-support";
import { links } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { markLinkDeleted, upsertListedLinks } from "../sync/queries";
import { UpstreamClient } from "../upstream/client";
import { wireLink } from "../testing/wire-fixtures";
import { UpstreamApi } from "../upstream/index";
import { lookUpCustomerLinks, purgeDeletedLinks, registerLinkIds } from "./discovery";
import { DELETED_RETENTION_DAYS } from "./error-codes";
import { recordLinks } from "./read-model";

// The read model learns a link from every source and keeps it: what each source records, that the first source stays,
// a customer's links looked up through the door, and that links deleted long ago leave as they leave the upstream.

const databases = withTestDatabases();
const DAY_MS = 24 * 60 * 60 * 1000;
let sandbox: TestSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ links: 120 });
});
afterAll(() => sandbox?.close());

/** Ids shaped like the upstream's (mk_ and 22 letters or digits), unique to one test by `tag`. */
const ids = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => `mk_${tag}${String(i).padStart(22 - tag.length, "0")}`);

describe.each(databases)("discovery on $kind", (target) => {
  const db = () => target.database.db;
  const rowsOf = (linkIds: string[]) => db().select().from(links).where(inArray(links.linkId, linkIds));

  it("registers unknown ids as bare rows learned by registration, counting each id once", async () => {
    const at = new Date("2026-11-20T10:00:00.000Z");
    const fresh = ids("reg", 2500);
    const result = await registerLinkIds(db(), [...fresh, fresh[0]!, fresh[1]!], "registration", at);
    expect(result).toEqual({ registered: 2500, alreadyKnown: 0 });
    const rows = await rowsOf(fresh);
    expect(rows).toHaveLength(2500);
    for (const row of rows) {
      // Nothing but the id and where it came from: the sync reads the details.
      expect(row).toMatchObject({
        learnedFrom: "registration",
        learnedAt: at,
        seenAt: null,
        state: null,
        listedAt: null,
        createdAt: null,
        raw: null,
      });
    }
  });

  it("leaves a known link alone, where it was first learned included, and says how many were known", async () => {
    const [listed, answered, unknown] = ids("known", 3);
    const listedAt = new Date("2026-11-01T00:00:00.000Z");
    await upsertListedLinks(db(), [{ link_id: listed!, created_at: "2026-10-01T00:00:00Z" }], listedAt);
    await recordLinks(
      db(),
      [wireLink({ link_id: answered!, state: "error", error_code: "auth_expired" })],
      listedAt,
      "upstream_answer",
    );
    const before = await rowsOf([listed!, answered!]);

    expect(await registerLinkIds(db(), [listed!, answered!, unknown!], "registration")).toEqual({
      registered: 1,
      alreadyKnown: 2,
    });
    expect(await rowsOf([listed!, answered!])).toEqual(expect.arrayContaining(before));
    const byId = new Map((await rowsOf([listed!, answered!, unknown!])).map((row) => [row.linkId, row]));
    expect(byId.get(listed!)).toMatchObject({ learnedFrom: "listing", learnedAt: listedAt });
    expect(byId.get(answered!)).toMatchObject({
      learnedFrom: "upstream_answer",
      state: "error",
      errorCode: "auth_expired",
    });
    expect(byId.get(unknown!)).toMatchObject({ learnedFrom: "registration" });
  });

  it("keeps a registered link's source once the sync or a listing has read it", async () => {
    const [id] = ids("kept", 1);
    const registeredAt = new Date("2026-11-02T00:00:00.000Z");
    await registerLinkIds(db(), [id!], "registration", registeredAt);
    await recordLinks(
      db(),
      [wireLink({ link_id: id!, state: "error", error_code: "user_error" })],
      new Date("2026-11-03T00:00:00Z"),
    );
    await upsertListedLinks(
      db(),
      [{ link_id: id!, created_at: "2026-10-01T00:00:00Z" }],
      new Date("2026-11-04T00:00:00Z"),
    );
    const [row] = await rowsOf([id!]);
    expect(row).toMatchObject({
      learnedFrom: "registration",
      learnedAt: registeredAt,
      state: "error",
      errorCode: "user_error",
    });
    expect(row!.listedAt).toEqual(new Date("2026-11-04T00:00:00Z"));
    expect(row!.createdAt).toEqual(new Date("2026-10-01T00:00:00Z"));
  });

  it("records a link new to the listing as learned from it", async () => {
    const [id] = ids("list", 1);
    const listedAt = new Date("2026-11-05T00:00:00.000Z");
    await upsertListedLinks(db(), [{ link_id: id!, created_at: "2026-10-01T00:00:00Z" }], listedAt);
    expect((await rowsOf([id!]))[0]).toMatchObject({ learnedFrom: "listing", learnedAt: listedAt });
  });

  it(`removes links first seen deleted more than ${DELETED_RETENTION_DAYS} days ago, and nothing else`, async () => {
    await db().delete(links).where(eq(links.state, "deleted"));
    const now = new Date("2026-11-20T00:00:00.000Z");
    const [gone, kept, recent, connected] = ids("purge", 4);
    const daysAgo = (days: number) => new Date(now.getTime() - days * DAY_MS);
    await recordLinks(db(), [wireLink({ link_id: gone!, state: "deleted" })], daysAgo(DELETED_RETENTION_DAYS + 1));
    await recordLinks(db(), [wireLink({ link_id: kept!, state: "deleted" })], daysAgo(DELETED_RETENTION_DAYS - 1));
    await recordLinks(db(), [wireLink({ link_id: connected!, state: "connected" })], daysAgo(400));
    // Learned deleted from a 410 yesterday, though read long before.
    await recordLinks(db(), [wireLink({ link_id: recent!, state: "connected" })], daysAgo(200));
    await markLinkDeleted(db(), recent!, daysAgo(1));

    expect(await purgeDeletedLinks(db(), now)).toBe(1);
    expect((await rowsOf([gone!, kept!, recent!, connected!])).map((row) => row.linkId).sort()).toEqual(
      [kept!, recent!, connected!].sort(),
    );
    expect(await purgeDeletedLinks(db(), now)).toBe(0);
    // Ninety days after it was seen deleted, the next one goes too.
    expect(
      await purgeDeletedLinks(
        db(),
        new Date(daysAgo(DELETED_RETENTION_DAYS - 1).getTime() + DELETED_RETENTION_DAYS * DAY_MS + 1),
      ),
    ).toBe(1);
    expect((await rowsOf([kept!])).length).toBe(0);
  });

  describe("a customer's links", () => {
    const api = () => {
      const { clientId, clientSecret } = sandbox.sandbox.state.options;
      // Wired as the app wires the door: every Link in an answer goes to the read model, with where it was learned.
      return new UpstreamApi(
        new UpstreamClient({ baseUrl: sandbox.base, clientId, clientSecret }),
        30_000,
        (found, learnedFrom) => recordLinks(db(), found, new Date(), learnedFrom),
      );
    };

    beforeEach(async () => {
      await db().delete(links).where(like(links.linkId, "mk_%"));
    });

    /** A seeded customer (user_1 … user_40) whose links' states pass `wanted`, as the sandbox answers for them. */
    async function customerWith(
      wanted: (states: string[]) => boolean,
    ): Promise<{ id: string; links: Record<string, { state: string }> }> {
      for (let n = 1; n <= 40; n++) {
        const answer = (await sandbox.api("GET", `/users/user_${n}/links`)).json as {
          links: Record<string, { state: string }>;
        };
        if (wanted(Object.values(answer.links).map((link) => link.state)))
          return { id: `user_${n}`, links: answer.links };
      }
      throw new Error("no seeded customer fits");
    }

    it("are every link the upstream made for the customer, in any state, errors first, each recorded as learned by the lookup", async () => {
      const customer = await customerWith((states) => states.length >= 2 && states.includes("error"));
      const found = await lookUpCustomerLinks(db(), api(), customer.id);
      expect(found.customerId).toBe(customer.id);
      expect(found.links.map((l) => l.linkId).sort()).toEqual(Object.keys(customer.links).sort());
      expect(found.links[0]!.state).toBe("error");
      expect(found.links.every((l) => l.newToLinkdesk)).toBe(true);
      const rows = await rowsOf(found.links.map((l) => l.linkId));
      expect(rows).toHaveLength(found.links.length);
      for (const row of rows) {
        const link = found.links.find((l) => l.linkId === row.linkId)!;
        expect(row).toMatchObject({
          learnedFrom: "customer_lookup",
          state: link.state,
          errorCode: link.errorCode,
          institutionName: link.institutionName,
        });
      }

      // Looked up again: the same links, now known to Linkdesk.
      const again = await lookUpCustomerLinks(db(), api(), customer.id);
      expect(again.links.map((l) => l.linkId)).toEqual(found.links.map((l) => l.linkId));
      expect(again.links.some((l) => l.newToLinkdesk)).toBe(false);
    });

    it("says which links were new to Linkdesk, and keeps the known ones' first source", async () => {
      const customer = await customerWith((states) => states.length >= 2);
      const found = await lookUpCustomerLinks(db(), api(), customer.id);
      await db().delete(links).where(like(links.linkId, "mk_%"));
      const [known, ...others] = found.links.map((l) => l.linkId);
      await registerLinkIds(db(), [known!], "registration");
      const again = await lookUpCustomerLinks(db(), api(), customer.id);
      expect(
        again.links
          .filter((l) => l.newToLinkdesk)
          .map((l) => l.linkId)
          .sort(),
      ).toEqual([...others].sort());
      expect((await rowsOf([known!]))[0]).toMatchObject({ learnedFrom: "registration", state: expect.any(String) });
    });

    it("finds nothing for a customer the upstream does not know", async () => {
      expect(await lookUpCustomerLinks(db(), api(), "user_nobody")).toEqual({ customerId: "user_nobody", links: [] });
    });
  });
});
