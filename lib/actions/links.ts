"use server";

import { getDb } from "../db/client";
import { getEnv } from "../env";
import { rememberLinkCustomers } from "../links/customers";
import { exchangeTokenSchema } from "../schemas/links";
import { upstream } from "../upstream";
import { ActionRefused, actionClient, noteUpstream } from "./safe-action";

/** Exchanges a front end's exchangeable token for the new link (POST /link-session/exchange-token). */
export const exchangeToken = actionClient
  .metadata({ action: "link.exchange_token", permission: "exchange" })
  .inputSchema(exchangeTokenSchema)
  .action(async ({ parsedInput, ctx }) => {
    // The token is single-use and short-lived, but still a credential: only its last characters go to the audit trail.
    ctx.note({ targetType: "link", input: { exchangeable_token: `…${parsedInput.exchangeableToken.slice(-4)}` } });
    const result = await noteUpstream(
      ctx.note,
      () => upstream().exchangeToken(parsedInput.exchangeableToken, { correlationId: ctx.correlationId }),
      201,
    );
    ctx.note({
      targetId: result.link.link_id,
      linkId: result.link.link_id,
      after: { state: result.link.state, institution: result.link.institution_name },
    });
    return { link: result.link };
  });

/**
 * Demo mode only: creates a link session on the sandbox and finishes it as the end user would, yielding a token to
 * try the exchange with. Refused on a real upstream.
 */
export const createSandboxExchangeToken = actionClient
  .metadata({ action: "link.sandbox_session", permission: "exchange" })
  .action(async ({ ctx }) => {
    if (!getEnv().UPSTREAM_SANDBOX) throw new ActionRefused("Sandbox tokens exist only in demo mode.");
    ctx.note({ input: { sandboxTokenRequested: true } });
    const api = upstream();
    const customerUserId = `linkdesk-demo-${ctx.staff.id.slice(0, 8)}`;
    const session = await noteUpstream(
      ctx.note,
      () =>
        api.createLinkSession(
          {
            customer_user: { id: customerUserId },
            redirect_uri: "https://linkdesk.invalid/return",
          },
          { correlationId: ctx.correlationId },
        ),
      201,
    );
    const completed = await api.completeSandboxSession(session.link_session_token, {
      correlationId: ctx.correlationId,
    });
    // The session named its customer: Linkdesk knows whose link it made (a reconnect request needs it).
    await rememberLinkCustomers((await getDb()).db, customerUserId, [completed.link_id], "link_session");
    return { exchangeableToken: completed.exchangeable_token };
  });
