import { describe, expect, it } from "vitest";
import { SigningKeys } from "../../sandbox/webhook-signing";
import { WebhookKeySource } from "./keys";

// The key set as the upstream rotates it (facts §11: a new kid signs, the old one stays listed a while), read through
// a fetch that takes a moment, as it does over the network.

describe("WebhookKeySource", () => {
  it("after a rotation, deliveries arriving together with the new kid share one read of the set and are all verified", async () => {
    let clock = Date.parse("2026-11-25T10:00:00Z");
    const signer = new SigningKeys(() => clock, 24 * 60 * 60_000);
    let reads = 0;
    const source = new WebhookKeySource({
      fetchKeys: async () => {
        reads++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return signer.jwks() as unknown as { keys: Record<string, unknown>[] };
      },
      now: () => clock,
    });
    const oldKid = signer.currentKid;
    expect((await source.lookup(oldKid)).key).not.toBeNull();
    clock += 60_000;
    const { kid } = signer.rotate();
    const found = await Promise.all(Array.from({ length: 64 }, () => source.lookup(kid)));
    expect(found.filter((lookup) => lookup.key === null)).toEqual([]);
    expect(reads).toBe(2);
    // The old key is still listed, and known without another read.
    expect((await source.lookup(oldKid)).key).not.toBeNull();
    expect(reads).toBe(2);
  });

  it("a made-up kid arriving while a read is under way is refused after that read, without a read of its own", async () => {
    let clock = Date.parse("2026-11-25T10:00:00Z");
    const signer = new SigningKeys(() => clock, 24 * 60 * 60_000);
    let reads = 0;
    const source = new WebhookKeySource({
      fetchKeys: async () => {
        reads++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return signer.jwks() as unknown as { keys: Record<string, unknown>[] };
      },
      now: () => clock,
    });
    await source.lookup(signer.currentKid);
    clock += 60_000;
    const { kid } = signer.rotate();
    const [genuine, madeUp] = await Promise.all([source.lookup(kid), source.lookup("not-a-key")]);
    expect(genuine.key).not.toBeNull();
    expect(madeUp).toMatchObject({ key: null, reason: expect.stringContaining("does not list") });
    expect(reads).toBe(2);
  });
});
