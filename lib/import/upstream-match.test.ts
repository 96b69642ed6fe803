import { describe, expect, it } from "vitest";
import {
  type CustomerAtUpstream,
  type FileLinkFacts,
  type UpstreamLinkFacts,
  NO_DECISIONS,
  decide,
  decisionKey,
  describeDiff,
  matchWithUpstream,
  recordAgrees,
  sameInstitution,
  updateFor,
} from "./upstream-match";

const OWN = "linkdesk-id:0123456789abcdef0123456789abcdef";

function fileLink(overrides: Partial<FileLinkFacts> = {}): FileLinkFacts {
  return {
    position: 0,
    line: 1,
    customerUserId: "cu_1",
    institutionId: "chase",
    accounts: [
      { id: "acc-1", name: "Checking", mask: "1111" },
      { id: "acc-2", name: "Savings", mask: "2222" },
    ],
    tags: ["legacy_id:ID0001", "team:retail"],
    webhook: null,
    transactions: [
      { id: "t-1", accountId: "acc-1" },
      { id: "t-2", accountId: "acc-2" },
    ],
    firstDate: "2025-01-02",
    lastDate: "2025-01-03",
    ownTags: [OWN],
    ...overrides,
  };
}

function upstreamLink(overrides: Partial<UpstreamLinkFacts> = {}): UpstreamLinkFacts {
  return {
    linkId: "mk_1",
    state: "error",
    institutionId: "chase",
    institutionName: "Chase",
    tags: ["legacy_id:ID0001", "team:retail"],
    webhook: null,
    ...overrides,
  };
}

const accountsOf = (linkId: string, ids = ["acc-1", "acc-2"], masks = ["1111", "2222"]) =>
  new Map([
    [linkId, ids.map((id, i) => ({ originalId: id, mask: masks[i] ?? null, name: i === 0 ? "Checking" : "Savings" }))],
  ]);

function customers(links: UpstreamLinkFacts[], accounts: CustomerAtUpstream["accounts"] = null) {
  return new Map<string, CustomerAtUpstream>([["cu_1", { links, accounts }]]);
}

describe("a file's links against what the upstream holds for their customers", () => {
  it("knows a link imported in another identity mode by Linkdesk's own identity tag, and by a tag named in any import", () => {
    const byOwn = matchWithUpstream([fileLink({ tags: null })], customers([upstreamLink({ tags: [OWN] })]), {
      identityNames: [],
    });
    expect(byOwn.get(0)).toMatchObject({ kind: "same", linkId: "mk_1", by: "Linkdesk's identity tag" });

    // Migrated by a script before Linkdesk: only the legacy tag is shared, and ops named it (now or in an earlier import).
    const byName = matchWithUpstream([fileLink({ ownTags: [] })], customers([upstreamLink()]), {
      identityNames: ["legacy_id"],
    });
    expect(byName.get(0)).toMatchObject({ kind: "same", by: "tag legacy_id:ID0001" });
  });

  it("never takes a shared tag that is not an identity (team:retail) for the same link", () => {
    const match = matchWithUpstream(
      [fileLink({ ownTags: [], tags: ["team:retail"], institutionId: "wells_fargo" })],
      customers([upstreamLink({ tags: ["team:retail"] })], accountsOf("mk_1", ["other"])),
      { identityNames: ["legacy_id"] },
    );
    expect(match.get(0)).toEqual({ kind: "new" });
  });

  it("offers a link of the same customer, institution and accounts with no shared identity for ops to confirm", () => {
    const match = matchWithUpstream(
      [fileLink({ ownTags: [] })],
      customers([upstreamLink({ tags: [] })], accountsOf("mk_1")),
      { identityNames: [] },
    );
    expect(match.get(0)).toMatchObject({
      kind: "possible",
      linkId: "mk_1",
      by: "the same customer, institution and accounts",
    });
  });

  it("offers a corrected link (institution fixed in the file) by its accounts, and lists the institution as fixed upstream", () => {
    const match = matchWithUpstream(
      [fileLink({ ownTags: ["linkdesk-id:ffff"], tags: null, institutionId: "wells_fargo" })],
      customers([upstreamLink({ tags: ["linkdesk-id:0000"] })], accountsOf("mk_1")),
      { identityNames: [] },
    );
    const possible = match.get(0);
    expect(possible).toMatchObject({ kind: "possible", by: "the same customer and accounts" });
    expect(possible?.kind === "possible" && possible.diff.fixed).toEqual([
      { field: "institution", file: "wells_fargo", upstream: "Chase (chase)" },
    ]);
  });

  it("matches by masks when the upstream's accounts carry no original ids (a link not made by an import)", () => {
    const accounts = new Map([
      [
        "mk_1",
        [
          { originalId: null, mask: "2222", name: "Savings" },
          { originalId: null, mask: "1111", name: "Checking" },
        ],
      ],
    ]);
    const match = matchWithUpstream([fileLink({ ownTags: [] })], customers([upstreamLink({ tags: [] })], accounts), {
      identityNames: [],
    });
    expect(match.get(0)?.kind).toBe("possible");
  });

  it("holds a link whose identity two live upstream links carry, and says which", () => {
    const match = matchWithUpstream([fileLink()], customers([upstreamLink(), upstreamLink({ linkId: "mk_2" })]), {
      identityNames: ["legacy_id"],
    });
    expect(match.get(0)).toMatchObject({ kind: "ambiguous", linkIds: ["mk_1", "mk_2"] });
  });

  it("says a link was deleted at the upstream, unless a live link of its shape is there", () => {
    const deleted = matchWithUpstream([fileLink()], customers([upstreamLink({ state: "deleted" })]), {
      identityNames: ["legacy_id"],
    });
    expect(deleted.get(0)).toMatchObject({ kind: "deleted", linkId: "mk_1" });

    const live = matchWithUpstream(
      [fileLink()],
      customers([upstreamLink({ state: "deleted" }), upstreamLink({ linkId: "mk_2", tags: [] })], accountsOf("mk_2")),
      { identityNames: ["legacy_id"] },
    );
    expect(live.get(0)).toMatchObject({ kind: "possible", linkId: "mk_2" });
  });

  it("leaves a customer the upstream was not asked about as new (checked again right before the import)", () => {
    expect(matchWithUpstream([fileLink()], new Map(), { identityNames: ["legacy_id"] }).get(0)).toEqual({
      kind: "new",
    });
  });

  it("does not offer a link an identity already claimed to another file link of the same shape", () => {
    const match = matchWithUpstream(
      [fileLink(), fileLink({ position: 1, ownTags: [], tags: ["legacy_id:ID0002"] })],
      customers([upstreamLink()], accountsOf("mk_1")),
      { identityNames: ["legacy_id"] },
    );
    expect(match.get(0)?.kind).toBe("same");
    expect(match.get(1)).toEqual({ kind: "new" });
  });
});

describe("what differs from the upstream's copy", () => {
  it("counts the file's new transactions on accounts the copy has, and lists accounts and names it cannot take", () => {
    const file = fileLink({
      accounts: [
        { id: "acc-1", name: "Everyday checking", mask: "1111" },
        { id: "acc-2", name: "Savings", mask: "2222" },
        { id: "acc-3", name: "Card", mask: "3333" },
      ],
      transactions: [
        { id: "t-1", accountId: "acc-1" },
        { id: "t-2", accountId: "acc-2" },
        { id: "t-3", accountId: "acc-2" },
        { id: "t-4", accountId: "acc-3" },
      ],
    });
    const match = matchWithUpstream([file], customers([upstreamLink()], accountsOf("mk_1")), {
      identityNames: ["legacy_id"],
      originalIds: new Map([["mk_1", new Set(["t-1", "t-2"])]]),
    });
    const same = match.get(0);
    if (same?.kind !== "same") throw new Error("expected the same link");
    expect(same.diff.newTransactions).toEqual(["t-3"]);
    expect(same.diff.fixed.map((f) => f.field)).toEqual(["account acc-1: name", "accounts"]);
    expect(describeDiff(same.diff)).toContain("1 new transaction;");
  });

  it("compares tags without Linkdesk's own, and the update keeps Linkdesk's own tags", () => {
    const upstream = upstreamLink({
      tags: ["legacy_id:ID0001", "team:retail", OWN, "linkdesk-import:job:3"],
      webhook: "https://old.example/hook",
    });
    const file = fileLink({ tags: ["legacy_id:ID0001", "team:wealth"], webhook: "https://new.example/hook" });
    const match = matchWithUpstream([file], customers([upstream]), { identityNames: ["legacy_id"] });
    const same = match.get(0);
    if (same?.kind !== "same") throw new Error("expected the same link");
    expect(same.diff.tags).toEqual({ add: ["team:wealth"], remove: ["team:retail"] });
    expect(same.diff.webhook).toEqual({ from: "https://old.example/hook", to: "https://new.example/hook" });
    expect(same.diff.newTransactions).toBeNull();
    expect(updateFor(file, upstream, same.diff)).toEqual({
      link_tags: [OWN, "linkdesk-import:job:3", "legacy_id:ID0001", "team:wealth"],
      webhook: "https://new.example/hook",
    });
  });

  it("has nothing to update when the file agrees with the copy", () => {
    const match = matchWithUpstream([fileLink()], customers([upstreamLink()]), { identityNames: ["legacy_id"] });
    const same = match.get(0);
    if (same?.kind !== "same") throw new Error("expected the same link");
    expect(updateFor(fileLink(), upstreamLink(), same.diff)).toBeNull();
  });
});

describe("the same institution", () => {
  it.each([
    ["chase", "chase", true],
    ["MX.chase", "mx.chase", true],
    ["mx.chase", "chase", true],
    ["yodlee.30188", "chase", false],
    ["chase", "wells_fargo", false],
    ["mx.Chase", "chase", false],
  ])("%s and the upstream's %s: %s", (file, upstream, same) => {
    expect(sameInstitution(file, upstream)).toBe(same);
  });
});

describe("replacing the upstream's copy, by ops' choice", () => {
  const corrected = fileLink({ ownTags: ["linkdesk-id:ffff"], tags: null, institutionId: "wells_fargo" });
  const copy = upstreamLink({ tags: ["linkdesk-id:0000"] });
  const matched = () =>
    matchWithUpstream([corrected], customers([copy], accountsOf("mk_1")), { identityNames: [] }).get(0);

  it("replaces a match whose file differs in what the upstream cannot change, when ops tick it", () => {
    const replace = [decisionKey(0, "mk_1")];
    const decision = decide(matched(), corrected, copy, { ...NO_DECISIONS, replace });
    expect(decision).toMatchObject({ act: "replace", linkId: "mk_1" });
    expect(decision.act === "replace" && decision.reason).toContain("institution wells_fargo");
    // Not ticked: held as a possible match, nothing sent.
    expect(decide(matched(), corrected, copy, NO_DECISIONS)).toMatchObject({ act: "skip", outcome: "possible_match" });
  });

  it("never replaces a link the file agrees with in what cannot change, whatever the request says", () => {
    const same = fileLink();
    const match = matchWithUpstream([same], customers([upstreamLink()], accountsOf("mk_1")), {
      identityNames: ["legacy_id"],
    }).get(0);
    expect(match?.kind).toBe("same");
    const decision = decide(match, same, upstreamLink(), { ...NO_DECISIONS, replace: [decisionKey(0, "mk_1")] });
    expect(decision.act).not.toBe("replace");
  });

  it("lists a link Linkdesk imported with the same identity when the file differs in what cannot change, instead of calling it already imported", () => {
    const same = fileLink({ institutionId: "wells_fargo" });
    const match = matchWithUpstream([same], customers([upstreamLink()], accountsOf("mk_1")), {
      identityNames: ["legacy_id"],
    }).get(0);
    const decision = decide(match, same, upstreamLink(), NO_DECISIONS);
    expect(decision).toMatchObject({ act: "skip", outcome: "at_upstream", fixed: true });
    expect(recordAgrees(decision, "mk_1")).toBe(false);
    const agreeing = decide(
      matchWithUpstream([fileLink()], customers([upstreamLink()], accountsOf("mk_1")), {
        identityNames: ["legacy_id"],
      }).get(0),
      fileLink(),
      upstreamLink(),
      NO_DECISIONS,
    );
    expect(recordAgrees(agreeing, "mk_1")).toBe(true);
  });
});
