import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { SANDBOX_DEFAULTS } from "./defaults";
import { type TestSandbox, startSandbox } from "./test-support";

// The demo's product back end: it takes a reconnect request only when its Standard Webhooks signature verifies, acts
// on a message once however often it is delivered, and its end users reconnect (or not) as the share says.

let t: TestSandbox | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A broken link (imported without credentials) and a relink session for it, as Linkdesk makes one. */
async function askedLink(sandbox: TestSandbox) {
  const customer = `user_demo_${randomUUID().slice(0, 8)}`;
  const link = (
    await sandbox.api("POST", "/links/import", { body: { customer_user: { id: customer }, institution_id: "chase" } })
  ).json as { link_id: string; state: string };
  const session = (
    await sandbox.api("POST", "/link-session", {
      body: {
        customer_user: { id: customer },
        redirect_uri: "https://app.example/return",
        existing_link_id: link.link_id,
      },
    })
  ).json as { link_session_token: string };
  return { link, token: session.link_session_token };
}

function signed(secret: string, body: object) {
  const id = `msg_${randomUUID()}`;
  const payload = JSON.stringify(body);
  const at = new Date();
  const signature = new Webhook(secret).sign(id, at, payload);
  return {
    body: payload,
    headers: {
      "Content-Type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": signature,
    },
  };
}

const message = (linkId: string, token: string) => ({
  type: "link.reconnect_requested",
  timestamp: new Date().toISOString(),
  data: { link_id: linkId, link_session_token: token },
});

describe("the demo product", () => {
  it("refuses a message whose signature does not verify, and acts on nothing", async () => {
    t = await startSandbox({ demoReconnectShare: 1, demoReconnectWithinMs: 0 });
    const { link, token } = await askedLink(t);
    const forged = signed(
      "whsec_" + Buffer.from("not-the-demo-secret").toString("base64"),
      message(link.link_id, token),
    );
    const answer = await t.raw("POST", "/_sandbox/demo-product/webhook", forged);
    expect(answer.status).toBe(401);
    expect(String((answer.json as { error: string }).error)).toContain("signature not verified");
    expect(((await t.raw("GET", "/_sandbox/demo-product/messages")).json as { messages: unknown[] }).messages).toEqual(
      [],
    );
  });

  it("reconnects an asked user's link once, however often the message arrives", async () => {
    t = await startSandbox({ demoReconnectShare: 1, demoReconnectWithinMs: 0 });
    const { link, token } = await askedLink(t);
    expect(link.state).toBe("error");
    const request = signed(SANDBOX_DEFAULTS.demoProductSecret, message(link.link_id, token));
    expect((await t.raw("POST", "/_sandbox/demo-product/webhook", request)).status).toBe(204);
    expect((await t.raw("POST", "/_sandbox/demo-product/webhook", request)).status).toBe(204);
    await expect
      .poll(async () => ((await t!.api("GET", `/links/${link.link_id}`)).json as { state: string }).state)
      .toBe("connected");
    const { messages } = (await t.raw("GET", "/_sandbox/demo-product/messages")).json as {
      messages: { linkId: string; outcome: string | null }[];
    };
    expect(messages).toEqual([expect.objectContaining({ linkId: link.link_id, outcome: "reconnected" })]);
  });

  it("leaves the links of users who never answer broken", async () => {
    t = await startSandbox({ demoReconnectShare: 0, demoReconnectWithinMs: 0 });
    const { link, token } = await askedLink(t);
    const request = signed(SANDBOX_DEFAULTS.demoProductSecret, message(link.link_id, token));
    expect((await t.raw("POST", "/_sandbox/demo-product/webhook", request)).status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(((await t.api("GET", `/links/${link.link_id}`)).json as { state: string }).state).toBe("error");
    const { messages } = (await t.raw("GET", "/_sandbox/demo-product/messages")).json as {
      messages: { reconnectsAt: string | null }[];
    };
    expect(messages).toEqual([expect.objectContaining({ reconnectsAt: null })]);
  });
});
