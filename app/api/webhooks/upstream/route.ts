import type { NextRequest } from "next/server";
import { clientAddress } from "@/lib/auth";
import { getDb } from "@/lib/db/client";
import { getEnv } from "@/lib/env";
import { logger } from "@/lib/logger";
import { webhookKeys } from "@/lib/webhooks/keys-instance";
import { kickWebhookProcessor } from "@/lib/webhooks/processor";
import { WEBHOOK_BODY_LIMIT_BYTES, receiveWebhook } from "@/lib/webhooks/receive";

const noStore = { "Cache-Control": "no-store" };

// The upstream's webhooks (upstream-facts §11), sent here directly or forwarded unchanged (raw body and headers) by
// the product's back end. No staff session: the signature is the credential (lib/webhooks/verify.ts). The door
// (proxy.ts) lets this path through and caps its body at 1 MB; everything else is decided in lib/webhooks/receive.ts.
export async function POST(request: NextRequest) {
  const env = getEnv();
  const { body, overLimit } = await readBounded(request, WEBHOOK_BODY_LIMIT_BYTES);
  try {
    const answer = await receiveWebhook(
      { body, overLimit, headers: request.headers, sourceAddress: clientAddress(request.headers), receivedAt: new Date() },
      { db: (await getDb()).db, keys: webhookKeys(), maxAgeS: env.WEBHOOK_MAX_AGE_S, ratePerSecond: env.WEBHOOK_RATE_PER_SECOND },
    );
    if (answer.stored) kickWebhookProcessor();
    return Response.json(answer.body, { status: answer.status, headers: { ...noStore, ...answer.headers } });
  } catch (error) {
    // Not the sender's fault (the database is away): a 503 makes the upstream deliver again later, so nothing is lost.
    logger().child({ component: "webhooks" }).error({ err: error }, "a webhook could not be stored");
    return Response.json({ error: "Linkdesk could not store the event just now; deliver it again later." }, { status: 503, headers: { ...noStore, "Retry-After": "30" } });
  }
}

/** The body's bytes up to `limit`, and whether there was more (the rest is not read). */
async function readBounded(request: Request, limit: number): Promise<{ body: Uint8Array; overLimit: boolean }> {
  if (!request.body) return { body: new Uint8Array(), overLimit: false };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        return { body: new Uint8Array(), overLimit: true };
      }
      chunks.push(value);
    }
  } catch {
    // The sender went away mid-body: what arrived is judged like any other body (its hash will not match).
  }
  return { body: Buffer.concat(chunks), overLimit: false };
}
