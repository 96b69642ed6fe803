// The product's back end in the demo, where `npm start` points Linkdesk's reconnect requests (PRODUCT_WEBHOOK_URL):
// it checks each message's Standard Webhooks signature with the scheme's own library, as a product would, and plays
// the end users asked: a share of them (demoReconnectShare) finish the relink some time later (within
// demoReconnectWithinMs: the session completed and its token exchanged, so the link is connected again and its
// webhook says so), the rest never do. Who reconnects, and when, follows from the link id: the same every run.
//   POST /_sandbox/demo-product/webhook    a message from Linkdesk (401 when its signature does not verify)
//   GET  /_sandbox/demo-product/messages   what it received and what its end users will do, for tests and the curious
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { Route, SandboxWorld } from "../context";
import { completeSession, exchangeToken } from "./link-session";

interface Received {
  id: string;
  type: string;
  linkId: string | null;
  receivedAt: string;
  /** The end user's answer: reconnecting at this time, or never. */
  reconnectsAt: string | null;
  /** Set once they did, or why they could not. */
  outcome: string | null;
}

const received = new WeakMap<SandboxWorld, Received[]>();
const KEEP = 1_000;

/** A number from 0 to 1 that a link id always gives (FNV-1a): who reconnects and when, the same every run. */
function share(text: string, salt: number): number {
  let hash = 0x811c9dc5 ^ salt;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0) / 0x1_0000_0000;
}

export const demoProductRoutes: Route[] = [
  {
    method: "POST",
    template: "/_sandbox/demo-product/webhook",
    control: true,
    async handle(ctx) {
      const { world } = ctx;
      const raw = (await ctx.rawBody()).toString("utf8");
      const headers = Object.fromEntries(
        ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [
          name,
          String(ctx.req.headers[name] ?? ""),
        ]),
      );
      let message: { type?: unknown; data?: Record<string, unknown> };
      try {
        message = new Webhook(world.options.demoProductSecret).verify(raw, headers) as typeof message;
      } catch (error) {
        const reason = error instanceof WebhookVerificationError ? error.message : "unreadable message";
        return { status: 401, body: { error: `signature not verified: ${reason}` } };
      }
      const list = received.get(world) ?? [];
      received.set(world, list);
      const id = headers["webhook-id"]!;
      // A message delivered again (the sender retried) is the same request: acted on once.
      if (list.some((r) => r.id === id)) return { status: 204 };
      const linkId = typeof message.data?.link_id === "string" ? message.data.link_id : null;
      const token = typeof message.data?.link_session_token === "string" ? message.data.link_session_token : null;
      const entry: Received = {
        id,
        type: String(message.type ?? ""),
        linkId,
        receivedAt: new Date(world.options.now()).toISOString(),
        reconnectsAt: null,
        outcome: null,
      };
      if (linkId && token && share(linkId, 1) < world.options.demoReconnectShare) {
        const delay = Math.round(world.options.demoReconnectWithinMs * (0.1 + 0.9 * share(linkId, 2)));
        entry.reconnectsAt = new Date(world.options.now() + delay).toISOString();
        world.later(delay, () => {
          try {
            const { exchangeableToken } = completeSession(world, token, {});
            exchangeToken(world, exchangeableToken);
            entry.outcome = "reconnected";
          } catch (error) {
            entry.outcome = `could not reconnect: ${error instanceof Error ? error.message : String(error)}`;
          }
        });
      }
      list.push(entry);
      if (list.length > KEEP) list.splice(0, list.length - KEEP);
      return { status: 204 };
    },
  },
  {
    method: "GET",
    template: "/_sandbox/demo-product/messages",
    control: true,
    async handle({ world }) {
      return { status: 200, body: { messages: received.get(world) ?? [] } };
    },
  },
];
