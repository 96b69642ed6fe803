import type { NextRequest } from "next/server";
import { clientAddress } from "@/lib/auth";
import { getDb } from "@/lib/db/client";
import { getEnv } from "@/lib/env";
import { readBoundedBody } from "@/lib/http/read-bounded";
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
  const { body, overLimit } = await readBoundedBody(request, WEBHOOK_BODY_LIMIT_BYTES);
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
