import { randomBytes } from "node:crypto";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { Socket } from "node:net";
import { Webhook, WebhookVerificationError } from "standardwebhooks";

// Test support (vitest and Playwright): the product's back end as far as Linkdesk's messages go, a real HTTP server on
// loopback that checks every request's Standard Webhooks signature with the scheme's own library (`verify`), as the
// product would, and keeps each message once by its webhook-id. It can be told to answer the next requests with an
// error, or not at all.

export interface ReceivedWebhook {
  /** webhook-id: the message's id, the same on every try. */
  id: string;
  /** webhook-timestamp: this try's time, in seconds. */
  timestamp: number;
  /** The body as sent, and as verified. */
  raw: string;
  body: { type: string; timestamp: string; data: Record<string, unknown> };
  receivedAt: Date;
  /** What the receiver answered. */
  answered: number | "nothing";
}

/** How the receiver answers one request: a status, or nothing at all (the connection stays open until it closes). */
export type Answer = number | "nothing";

export interface ProductReceiver {
  /** Where to point PRODUCT_WEBHOOK_URL. */
  url: string;
  /** The `whsec_` secret it verifies with: PRODUCT_WEBHOOK_SECRET. */
  secret: string;
  /** Every verified request, each try of each message, in order of arrival. */
  tries: ReceivedWebhook[];
  /** Requests whose signature did not verify (answered 401), with the library's reason. */
  refused: string[];
  /** What a receiver that keeps each webhook-id once has kept: the first try answered 2xx of each message. */
  kept(): ReceivedWebhook[];
  /** The next requests get these answers, in order; after them, 204. */
  answerNext(...answers: Answer[]): void;
  /** Resolves once `count` messages are kept (or throws after `timeoutMs`). */
  waitForKept(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A fresh Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

export async function startProductReceiver(
  options: { secret?: string; port?: number; path?: string } = {},
): Promise<ProductReceiver> {
  const secret = options.secret ?? newWebhookSecret();
  const verifier = new Webhook(secret);
  const path = options.path ?? "/hooks/linkdesk";
  const tries: ReceivedWebhook[] = [];
  const refused: string[] = [];
  const queued: Answer[] = [];
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();

  const kept = () => {
    const seen = new Set<string>();
    return tries.filter((t) => {
      if (typeof t.answered !== "number" || t.answered < 200 || t.answered >= 300 || seen.has(t.id)) return false;
      seen.add(t.id);
      return true;
    });
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    if (request.method !== "POST" || request.url !== path) {
      response.writeHead(404).end();
      return;
    }
    let body: ReceivedWebhook["body"];
    try {
      body = verifier.verify(raw, {
        "webhook-id": String(request.headers["webhook-id"] ?? ""),
        "webhook-timestamp": String(request.headers["webhook-timestamp"] ?? ""),
        "webhook-signature": String(request.headers["webhook-signature"] ?? ""),
      }) as ReceivedWebhook["body"];
    } catch (error) {
      refused.push(error instanceof WebhookVerificationError ? error.message : String(error));
      response.writeHead(401, { "content-type": "text/plain" }).end("signature does not verify");
      return;
    }
    const answer = queued.shift() ?? 204;
    tries.push({
      id: String(request.headers["webhook-id"]),
      timestamp: Number(request.headers["webhook-timestamp"]),
      raw,
      body,
      receivedAt: new Date(),
      answered: answer,
    });
    for (const wake of waiters) wake();
    if (answer === "nothing") return;
    response.writeHead(answer, { "content-type": "text/plain" }).end(answer < 300 ? "ok" : "not now");
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => response.writeHead(500).end());
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the receiver has no port");

  return {
    url: `http://127.0.0.1:${address.port}${path}`,
    secret,
    tries,
    refused,
    kept,
    answerNext: (...answers) => queued.push(...answers),
    async waitForKept(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (kept().length < count) {
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(`the receiver kept ${kept().length} of ${count} messages within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            waiters.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, Math.min(left, 200));
          waiters.add(wake);
        });
      }
      return kept();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
