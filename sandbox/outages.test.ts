import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReceiver, type WebhookReceiver } from "./test-receiver";
import { expectError, startSandbox, type TestSandbox } from "./test-support";

// Staged outages, as the demo and the tests stage them: an institution's links down for a while and back by themselves,
// each change heard by the link's webhook; a wave of auth_expired that stays; a webhook pause that holds deliveries
// and sends them late; and bad requests refused in words.

let t: TestSandbox;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startSandbox({ links: 200, seedWebhookUrl: receiver.url("/seeded"), webhookRetryBaseMs: 10 });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const control = async (method: string, path: string, body?: unknown) =>
  t.raw(
    method,
    path,
    body === undefined ? undefined : { body: JSON.stringify(body), headers: { "Content-Type": "application/json" } },
  );

interface Outage {
  id: string;
  link_ids: string[];
  state: string;
  ends_at: string | null;
}

const stateOf = async (linkId: string) =>
  (await t.api("GET", `/links/${linkId}`)).json as {
    state: string;
    error_code?: string | null;
    institution_id: string;
  };

const connectedAt = async (institutionId: string) => {
  const ids = (await (await fetch(`${t.base}/_sandbox/back-end/link-ids`)).json()) as { link_ids: string[] };
  const out: string[] = [];
  for (const id of ids.link_ids) {
    const link = t.sandbox.state.store.getLink(id);
    if (link?.state === "connected" && link.institution_id === institutionId) out.push(id);
  }
  return out;
};

async function until(check: () => Promise<boolean>, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("not in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("staged outages", () => {
  it("takes an institution's connected links to institution_error for a while, heard by webhook, then back", async () => {
    const before = await connectedAt("chase");
    expect(before.length).toBeGreaterThan(0);
    const heard = receiver.received.length;
    const staged = await control("POST", "/_sandbox/outages", {
      kind: "institution",
      institution_id: "chase",
      duration_s: 1,
    });
    expect(staged.status).toBe(201);
    const { outage } = staged.json as { outage: Outage };
    expect(outage.link_ids.sort()).toEqual([...before].sort());
    expect(await stateOf(before[0]!)).toMatchObject({ state: "error", error_code: "institution_error" });
    await receiver.waitFor(heard + before.length, "/seeded");
    // It ends by itself: each link back connected, and heard again.
    await until(async () => (await stateOf(before[0]!)).state === "connected");
    expect((await connectedAt("chase")).sort()).toEqual([...before].sort());
    await receiver.waitFor(heard + 2 * before.length, "/seeded");
    const listed = (await control("GET", "/_sandbox/outages")).json as { outages: Outage[] };
    expect(listed.outages.find((o) => o.id === outage.id)?.state).toBe("ended");
  });

  it("a wave of auth_expired takes a share of an institution's connected links down, and it stays", async () => {
    const before = await connectedAt("ally");
    const { outage } = (
      await control("POST", "/_sandbox/outages", { kind: "auth_expired", institution_id: "ally", share: 0.5 })
    ).json as { outage: Outage };
    expect(outage.link_ids).toHaveLength(Math.ceil(before.length / 2));
    expect(outage.ends_at).toBeNull();
    for (const id of outage.link_ids)
      expect(await stateOf(id)).toMatchObject({ state: "error", error_code: "auth_expired" });
    // Ending it does not reconnect anyone: each user must.
    await control("POST", `/_sandbox/outages/${outage.id}/end`);
    expect(await stateOf(outage.link_ids[0]!)).toMatchObject({ state: "error", error_code: "auth_expired" });
  });

  it("a webhook pause holds every delivery until it ends, then sends them", async () => {
    const [linkId] = await connectedAt("wells_fargo");
    const heard = receiver.received.length;
    const { outage } = (await control("POST", "/_sandbox/outages", { kind: "webhook_pause", duration_s: 60 })).json as {
      outage: Outage;
    };
    await control("POST", `/_sandbox/links/${linkId}/state`, { state: "error", error_code: "system_error" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.length).toBe(heard);
    await control("POST", `/_sandbox/outages/${outage.id}/end`);
    await receiver.waitFor(heard + 1, "/seeded");
    expect(receiver.received.at(-1)!.body).toMatchObject({ webhook_event: "link.state_changed", link_id: linkId });
  });

  it("refuses what it cannot stage, naming the field, and an unknown outage is 404", async () => {
    const noInstitution = await control("POST", "/_sandbox/outages", { kind: "institution", duration_s: 5 });
    expectError(noInstitution, 422, "api_error.request.validation_failed");
    const noDuration = await control("POST", "/_sandbox/outages", { kind: "provider", provider: "plaid" });
    expectError(noDuration, 422, "api_error.request.validation_failed");
    expectError(await control("POST", "/_sandbox/outages/outage_999/end"), 404, "sandbox_error.not_found");
  });
});
