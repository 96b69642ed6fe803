import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import { getDb } from "../db/client";
import { getEnv } from "../env";
import { trustedForwardedAddress } from "../http/client-address";
import { serveDirectly } from "../http/direct-routes";
import { checkRequestHead } from "../http/request-guard";
import { unreadableAddress } from "../http/storable-input";
import { strictTransportSecurity } from "../http/strict-transport-security";
import { logger } from "../logger";
import { webhookKeys } from "./keys-instance";
import { kickWebhookProcessor } from "./processor";
import { WEBHOOK_BODY_LIMIT_BYTES, receiveWebhook } from "./receive";

// The upstream's webhooks (upstream-facts §11), sent here directly or forwarded unchanged (raw body and headers) by
// the product's back end. No staff session: the signature is the credential (verify.ts); receive.ts decides.
//
// The path is answered by plain Node beside Next.js on the same server (lib/http/direct-routes.ts), with the door's
// checks that apply to it (an unreadable address, a declared body over 1 MB) in the door's words; the route handler
// (app/api/webhooks/upstream/route.ts) answers it the same way wherever the direct path is not installed.

export const WEBHOOK_PATH = "/api/webhooks/upstream";

export interface WebhookRequest {
  body: Uint8Array;
  overLimit: boolean;
  headers: Pick<Headers, "get">;
  sourceAddress: string | null;
}

export interface WebhookAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

const noStore = { "Cache-Control": "no-store" };

/** The receiver's answer to one request, whichever way it arrived. */
export async function answerWebhook(request: WebhookRequest): Promise<WebhookAnswer> {
  const env = getEnv();
  try {
    const answer = await receiveWebhook(
      { ...request, receivedAt: new Date() },
      {
        db: (await getDb()).db,
        keys: webhookKeys(),
        maxAgeS: env.WEBHOOK_MAX_AGE_S,
        ratePerSecond: env.WEBHOOK_RATE_PER_SECOND,
      },
    );
    if (answer.stored) kickWebhookProcessor();
    return { status: answer.status, body: answer.body, headers: { ...noStore, ...answer.headers } };
  } catch (error) {
    // Not the sender's fault (the database is away): a 503 makes the upstream deliver again later, so nothing is lost.
    logger().child({ component: "webhooks" }).error({ err: error }, "a webhook could not be stored");
    return {
      status: 503,
      body: { error: "Linkdesk could not store the event just now; deliver it again later." },
      headers: { ...noStore, "Retry-After": "30" },
    };
  }
}

/** Answers POST /api/webhooks/upstream on this process's HTTP server without Next.js (once; the start-up calls it). */
export function serveWebhooksDirectly(): void {
  serveDirectly("POST", WEBHOOK_PATH, (request, response) => void receiveDirectly(request, response));
}

function headersOf(request: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = request.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

function send(response: ServerResponse, { status, body, headers }: WebhookAnswer): void {
  if (response.headersSent || response.destroyed) return;
  const hsts = strictTransportSecurity(getEnv().AUTH_URL);
  response.writeHead(status, {
    "Content-Type": "application/json",
    "X-Content-Type-Options": "nosniff",
    ...(hsts ? { "Strict-Transport-Security": hsts } : {}),
    ...headers,
  });
  response.end(JSON.stringify(body));
}

async function receiveDirectly(request: IncomingMessage, response: ServerResponse): Promise<void> {
  try {
    const headers = headersOf(request);
    const target = request.url ?? WEBHOOK_PATH;
    const query = target.indexOf("?");
    const unreadable = query === -1 ? null : unreadableAddress(WEBHOOK_PATH, target.slice(query));
    const refusal = unreadable
      ? { status: 400, message: unreadable }
      : checkRequestHead({ method: request.method ?? "POST", headers }, WEBHOOK_PATH);
    if (refusal) {
      // What the door says, and the body is not read (lib/http/body-cap.ts drops what a declared length over the limit sends).
      request.resume();
      return send(response, { status: refusal.status, body: { error: refusal.message }, headers: noStore });
    }
    const { body, overLimit } = await readBody(request, WEBHOOK_BODY_LIMIT_BYTES);
    const forwarded = trustedForwardedAddress(headers.get("x-forwarded-for"), getEnv().TRUSTED_PROXY_HOPS);
    send(
      response,
      await answerWebhook({
        body,
        overLimit,
        headers,
        sourceAddress: forwarded ?? request.socket.remoteAddress ?? null,
      }),
    );
  } catch (error) {
    logger().child({ component: "webhooks" }).error({ err: error }, "a webhook request failed");
    send(response, {
      status: 503,
      body: { error: "Linkdesk could not take the event just now; deliver it again later." },
      headers: { ...noStore, "Retry-After": "30" },
    });
  }
}

/** The body up to `limit` bytes, and whether there was more (the rest is read off the wire and dropped). */
function readBody(request: IncomingMessage, limit: number): Promise<{ body: Uint8Array; overLimit: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let overLimit = false;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) overLimit = true;
      else chunks.push(chunk);
    });
    // A sender that goes away mid-body: what arrived is judged like any other body (cut short, it is not valid JSON).
    const done = () => resolve({ body: overLimit ? new Uint8Array() : Buffer.concat(chunks), overLimit });
    request.once("end", done);
    request.once("error", done);
    request.once("aborted", done);
  });
}
