import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { recordLinks } from "../links/read-model";
import { withTestDatabases } from "../testing/databases";
import { wireLink } from "../testing/wire-fixtures";
import { linkSchema } from "../upstream/schemas";
import { ReadNoticeRecorder, listReadNotices, recordReadNotices } from "./store";

const databases = withTestDatabases();

describe.each(databases)("what the upstream sent that Linkdesk does not know, on $kind", (target) => {
  let db: Db;
  beforeAll(async () => {
    db = target.database.db;
    // Three links read from answers carrying values this version does not know, one plain.
    await recordLinks(
      db,
      [
        wireLink({ link_id: "mk_a", state: "error", error_code: "consent_revoked" }),
        wireLink({ link_id: "mk_b", state: "error", error_code: "consent_revoked" }),
        linkSchema.parse({
          ...wireLink({ link_id: "mk_c", state: "relinking" }),
          products: { payment_initiation: { refreshed_at: null } },
        }),
        wireLink({ link_id: "mk_d" }),
      ],
      new Date(),
    );
  });

  it("counts each value once per key, sums the answers over writes, and says how many links carry it now", async () => {
    const call = { endpoint: "GET /links/{id}", correlationId: "corr-1" };
    const writes: number[] = [];
    const recorder = new ReadNoticeRecorder(
      async (entries) => {
        writes.push(entries.length);
        await recordReadNotices(db, entries);
      },
      { flushMs: 60_000 },
    );
    const codeNotice = { kind: "unknown_value" as const, field: "link.error_code", value: "consent_revoked" };
    recorder.note([{ ...codeNotice, itemId: "mk_a" }], call);
    recorder.note([{ ...codeNotice, itemId: "mk_b" }], call);
    recorder.note([{ kind: "unknown_value", field: "link.state", value: "relinking", itemId: "mk_c" }], call);
    recorder.note([{ kind: "unknown_value", field: "link.products", value: "payment_initiation" }], call);
    recorder.note(
      [
        {
          kind: "unreadable",
          field: "transaction.amount",
          value: 'amount: expected number (it was "twelve")',
          itemId: "txn_1",
        },
        {
          kind: "unreadable",
          field: "transaction.amount",
          value: 'amount: expected number (it was "thirteen")',
          itemId: "txn_2",
        },
      ],
      { endpoint: "GET /links/{id}/transactions", correlationId: "corr-2" },
    );
    // First sightings are written as they come; the second sighting of a key waits for the flush.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(writes.reduce((a, b) => a + b, 0)).toBe(4);
    await recorder.flush();

    const rows = await listReadNotices(db);
    const byKey = new Map(rows.map((r) => [`${r.field}=${r.value}`, r]));
    expect(byKey.get("link.error_code=consent_revoked")).toMatchObject({
      answers: 2,
      links: 2,
      endpoint: call.endpoint,
    });
    expect(byKey.get("link.state=relinking")).toMatchObject({ answers: 1, links: 1, exampleItemId: "mk_c" });
    expect(byKey.get("link.products=payment_initiation")).toMatchObject({ links: 1 });
    // An unreadable amount is counted by its reason, whatever the odd value was: one row, not one per value.
    expect(byKey.get("transaction.amount=amount: expected number")).toMatchObject({
      kind: "unreadable",
      answers: 2,
      links: null,
      exampleItemId: "txn_1",
    });

    // Another instance's writes add to the same rows.
    await recordReadNotices(db, [
      { ...codeNotice, endpoint: "GET /links/{id}", answers: 5, seenAt: new Date(Date.now() + 1000) },
    ]);
    const again = (await listReadNotices(db)).find((r) => r.value === "consent_revoked");
    expect(again?.answers).toBe(7);
    expect(again!.lastSeenAt.getTime()).toBeGreaterThan(again!.firstSeenAt.getTime());
  });
});
