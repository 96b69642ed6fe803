import "server-only";
import { and, desc, eq, sql } from "drizzle-orm";
import { describeScope, isBudgetExceeded, secondsUntil } from "../budget/budget";
import type { Db } from "../db/client";
import { type OutboundChannel, type ReconnectRequest, reconnectRequests } from "../db/schema";
import { brandError, hasErrorBrand } from "../error-brand";
import { type KnownCustomer, knownCustomerOf } from "../links/customers";
import { deliver, wakeOutboundWorker } from "../outbound";
import type { RequestReconnectInput } from "../schemas/reconnect";
import type { CallOptions, UpstreamApi } from "../upstream";
import { describeUpstreamError, isUpstreamError } from "../upstream/errors";
import type { WireLink } from "../upstream/schemas";
import { reconnectMessage } from "./message";
import { whyNoReconnect } from "./reasons";
import { type ReconnectSetup, notConfiguredWords } from "./setup";

// One reconnect request for one link: read the link fresh, check that its error needs the end user and whose link it
// is, create a relink session (POST /link-session with existing_link_id, carrying the link's webhook and tags over:
// the session replaces both, upstream-facts §7.1), and hand the session's token to the product in one message
// (lib/outbound). Recorded in reconnect_requests at each step, so the link's page says what became of it.
//
// One click, one session, one message: the request's key (made by the page, sent with every try of the click) is
// unique, so a second try of the same click finds the first's row; and a request for a link already asked for in the
// last minutes (from another tab, another person, another instance) is refused in words. Both checks run under a lock
// per link, so two tries at once see each other.

/** A request is not made again for the same link within this time, unless the last one failed. */
export const REPEAT_AFTER_MS = 10 * 60_000;
/** A request still `creating` after this long was cut short (a crash between the session and the message). */
const CREATING_STALE_MS = 2 * 60_000;
/** The first key of this module's two-key advisory locks (the sign-in throttle's is 0x5191). */
const RECONNECT_LOCK_SPACE = 0x7ec0;

/** A refusal before anything was sent, in words for the person. */
export class ReconnectRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReconnectRefused";
    brandError(this, "ReconnectRefused");
  }
}

export function isReconnectRefused(error: unknown): error is ReconnectRefused {
  return hasErrorBrand(error, "ReconnectRefused");
}

/** What the request's audit row holds besides who and when: never the session token. */
export type ReconnectReport = (facts: {
  input?: unknown;
  before?: unknown;
  after?: unknown;
  upstreamStatus?: number;
  upstreamErrorCode?: string;
}) => void;

export interface ReconnectContext {
  db: Db;
  api: Pick<UpstreamApi, "getLink" | "createLinkSession">;
  setup: ReconnectSetup;
  staff: { id: string; email: string; role: string };
  correlationId: string;
  report?: ReconnectReport;
  /**
   * How the calls are made: the link's page asks interactively (at once, or refused in words when the budget has no
   * slot); a campaign's job item passes its queued options (the call waits its slot, "sent" recorded before it goes).
   */
  calls?: { read: CallOptions; session: CallOptions };
  /** The campaign (job) asking, recorded on the request. */
  jobId?: string;
}

export interface ReconnectOutcome {
  request: ReconnectRequest;
  /** The same click arrived again: its request is returned as it stands, and nothing new was done. */
  replay: boolean;
  /** Where its message goes: the product's webhook, and email. */
  channels: OutboundChannel[];
}

export async function askToReconnect(
  input: RequestReconnectInput,
  context: ReconnectContext,
): Promise<ReconnectOutcome> {
  const { db, api, setup, staff, correlationId } = context;
  const report: ReconnectReport = context.report ?? (() => undefined);
  report({ input: { requestKey: input.requestKey } });

  const earlier = await requestByKey(db, input.requestKey);
  if (earlier) return replayOf(earlier, input.linkId);
  if (setup.missing.length > 0 || !setup.redirectUri) throw new ReconnectRefused(notConfiguredWords(setup.missing));

  const calls = context.calls ?? {
    read: { correlationId, mode: "interactive" },
    session: { correlationId, mode: "interactive" },
  };
  const link = await readLinkFresh(api, input.linkId, calls.read);
  const tags = link.link_tags ?? [];
  report({
    before: { state: link.state, errorCode: link.error_code ?? null, webhook: link.webhook ?? null, tags },
  });
  const refusal = whyNoReconnect(link);
  if (refusal) throw new ReconnectRefused(refusal);
  const errorCode = link.error_code!;
  const customer = await knownCustomerOf(db, link.link_id);
  if (!customer)
    throw new ReconnectRefused(
      "Linkdesk does not know which customer user this link belongs to: the upstream's link does not say, and the link was neither imported through Linkdesk nor listed in a look-up of its customer's links. If you know the customer's id, look it up under Links → A customer's links, then ask again. Nothing was sent.",
    );
  if (customer.customerUserId.length < 4 || customer.customerUserId.length > 150)
    throw new ReconnectRefused(
      `The link's customer id (${customer.customerUserId}) is not one the upstream takes for a link session (4 to 150 characters). Nothing was sent.`,
    );
  report({
    input: {
      requestKey: input.requestKey,
      errorCode,
      customerUserId: customer.customerUserId,
      customerSource: customer.source,
    },
  });

  const claim = await claimRequest(db, input, link, customer, staff, correlationId, context.jobId ?? null);
  if (claim.kind === "replay") return replayOf(claim.row, input.linkId);
  if (claim.kind === "recent") throw new ReconnectRefused(recentWords(claim.row));
  const request = claim.row;

  let token: string;
  try {
    const session = await api.createLinkSession(
      {
        customer_user: { id: customer.customerUserId },
        redirect_uri: setup.redirectUri,
        existing_link_id: link.link_id,
        // The session replaces the link's webhook and tags (removed if left out): what the link has now goes along.
        ...(link.webhook ? { webhook: link.webhook } : {}),
        link_tags: tags,
      },
      calls.session,
    );
    token = session.link_session_token;
    report({ upstreamStatus: 201 });
  } catch (error) {
    if (isUpstreamError(error))
      report({ upstreamStatus: error.status ?? 0, upstreamErrorCode: error.errorCode ?? error.kind });
    await settleFailed(db, request.id, `No link session was made: ${describeFailure(error)}`);
    throw error;
  }

  const emailTo = setup.emails && customer.email && setup.reconnectUrl ? customer.email : null;
  const message = reconnectMessage({
    requestId: request.id,
    requestedAt: request.requestedAt,
    linkId: link.link_id,
    institutionId: link.institution_id,
    institutionName: link.institution_name,
    errorCode,
    customerUserId: customer.customerUserId,
    linkSessionToken: token,
    email: emailTo && setup.reconnectUrl ? { to: emailTo, reconnectUrl: setup.reconnectUrl } : null,
  });
  let sent: ReconnectRequest;
  let channels: OutboundChannel[];
  try {
    ({ sent, channels } = await db.transaction(async (tx) => {
      const queued = await deliver(tx as unknown as Db, message, setup.outbound);
      const [row] = await tx
        .update(reconnectRequests)
        .set({ state: "sent", messageId: message.id, sessionTokenHint: `…${token.slice(-4)}` })
        .where(eq(reconnectRequests.id, request.id))
        .returning();
      return { sent: row!, channels: queued.channels };
    }));
  } catch (error) {
    await settleFailed(
      db,
      request.id,
      "A link session was made, but Linkdesk could not queue its message: nothing reached the user. Ask again.",
    );
    throw error;
  }
  wakeOutboundWorker();
  report({
    after: {
      requestId: sent.id,
      messageId: message.id,
      channels,
      sessionToken: sent.sessionTokenHint,
      keptWebhook: sent.keptWebhook,
      keptTags: sent.keptTags,
    },
  });
  return { request: sent, replay: false, channels };
}

export async function requestByKey(db: Db, requestKey: string): Promise<ReconnectRequest | undefined> {
  const [row] = await db.select().from(reconnectRequests).where(eq(reconnectRequests.requestKey, requestKey)).limit(1);
  return row;
}

function replayOf(row: ReconnectRequest, linkId: string): ReconnectOutcome {
  if (row.linkId !== linkId)
    throw new ReconnectRefused(
      "This request's key belongs to a request for another link. Reload the page and ask again.",
    );
  return { request: row, replay: true, channels: [] };
}

/** The link as the upstream has it now: its webhook and tags must be the current ones, not a page's copy. */
async function readLinkFresh(api: ReconnectContext["api"], linkId: string, options: CallOptions): Promise<WireLink> {
  try {
    return await api.getLink(linkId, options);
  } catch (error) {
    if (isUpstreamError(error) && error.status === 410)
      throw new ReconnectRefused("The link is deleted: it cannot be reconnected. Nothing was sent.");
    if (isUpstreamError(error) && error.status === 404)
      throw new ReconnectRefused("The upstream does not know this link (404). Nothing was sent.");
    throw error;
  }
}

type Claim =
  | { kind: "new"; row: ReconnectRequest }
  | { kind: "replay"; row: ReconnectRequest }
  | { kind: "recent"; row: ReconnectRequest };

/** Records the request as `creating`, unless the same click or a recent request for the link got there first. */
async function claimRequest(
  db: Db,
  input: RequestReconnectInput,
  link: WireLink,
  customer: KnownCustomer,
  staff: ReconnectContext["staff"],
  correlationId: string,
  jobId: string | null,
): Promise<Claim> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${RECONNECT_LOCK_SPACE}::int4, hashtext(${link.link_id}))`);
    // Read once the lock is held: every earlier holder's row is committed and seen.
    const [same] = await tx
      .select()
      .from(reconnectRequests)
      .where(eq(reconnectRequests.requestKey, input.requestKey))
      .limit(1);
    if (same) return { kind: "replay", row: same };
    const [recent] = await tx
      .select()
      .from(reconnectRequests)
      .where(
        and(
          eq(reconnectRequests.linkId, link.link_id),
          sql`${reconnectRequests.reconnectedAt} is null`,
          sql`(
            (${reconnectRequests.state} = 'creating'
              and ${reconnectRequests.requestedAt} > now() - make_interval(secs => ${CREATING_STALE_MS / 1000}))
            or (${reconnectRequests.state} = 'sent'
              and ${reconnectRequests.requestedAt} > now() - make_interval(secs => ${REPEAT_AFTER_MS / 1000})
              and exists (select 1 from outbound_deliveries d
                where d.message_id = ${reconnectRequests.messageId} and d.state <> 'failed'))
          )`,
        ),
      )
      .orderBy(desc(reconnectRequests.requestedAt))
      .limit(1);
    if (recent) return { kind: "recent", row: recent };
    const [row] = await tx
      .insert(reconnectRequests)
      .values({
        requestKey: input.requestKey,
        linkId: link.link_id,
        customerUserId: customer.customerUserId,
        customerSource: customer.source,
        institutionId: link.institution_id,
        institutionName: link.institution_name,
        errorCode: link.error_code ?? null,
        requestedBy: staff.id,
        requestedByEmail: staff.email,
        requestedByRole: staff.role,
        keptWebhook: link.webhook ?? null,
        keptTags: link.link_tags ?? [],
        correlationId,
        jobId,
      })
      .returning();
    return { kind: "new", row: row! };
  });
}

function recentWords(row: ReconnectRequest): string {
  const minutes = Math.max(1, Math.round((Date.now() - row.requestedAt.getTime()) / 60_000));
  const again = new Date(row.requestedAt.getTime() + REPEAT_AFTER_MS);
  const what =
    row.state === "creating" ? "is being made right now" : "was sent and its message is delivered or on its way";
  return `${row.requestedByEmail} asked this link's user to reconnect ${minutes} min ago, and that request ${what}: see Reconnect requests on this page. Linkdesk does not ask twice within ${REPEAT_AFTER_MS / 60_000} minutes; ask again after ${again.toISOString().slice(11, 16)} UTC if the link is still broken. Nothing was sent.`;
}

export async function settleFailed(db: Db, id: string, reason: string): Promise<void> {
  await db
    .update(reconnectRequests)
    .set({ state: "failed", reason })
    .where(and(eq(reconnectRequests.id, id), eq(reconnectRequests.state, "creating")))
    .catch(() => undefined);
}

/** Why the session was not made, in words for the request's row (the person reads the action's own words). */
function describeFailure(error: unknown): string {
  if (isUpstreamError(error)) {
    const { title, detail } = describeUpstreamError(error);
    return `${title}. ${detail}`;
  }
  if (isBudgetExceeded(error))
    return `Linkdesk's share of the upstream's rate limit (${describeScope(error.blockedBy)}) was used up; next slot in ${secondsUntil(error.nextSlotAt)} s.`;
  if (error instanceof RangeError) return error.message;
  return "Linkdesk failed before the upstream answered (see the server log).";
}
