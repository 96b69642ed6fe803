import "server-only";
import { type Env, getEnv } from "../env";
import { type OutboundConfig, describeMailServer, outboundConfigFrom } from "../outbound/config";

// What reconnect requests need from the configuration: the upstream's redirect_uri for the sessions, the product's
// webhook to hand each one to, and optionally a mail server and the product's reconnect page for email.

export interface ReconnectSetup {
  /** Variables still to set before a request can be made (empty: ready). */
  missing: string[];
  redirectUri: string | null;
  /** The product's page the email links to. */
  reconnectUrl: string | null;
  outbound: OutboundConfig;
  /** Whether an email goes too, where Linkdesk knows the end user's address. */
  emails: boolean;
}

type ReconnectEnv = Parameters<typeof outboundConfigFrom>[0] &
  Pick<Env, "LINK_SESSION_REDIRECT_URI" | "PRODUCT_RECONNECT_URL">;

export function reconnectSetupFrom(env: ReconnectEnv): ReconnectSetup {
  const outbound = outboundConfigFrom(env);
  const missing = [
    ...(env.LINK_SESSION_REDIRECT_URI ? [] : ["LINK_SESSION_REDIRECT_URI"]),
    ...(outbound.webhook ? [] : ["PRODUCT_WEBHOOK_URL", "PRODUCT_WEBHOOK_SECRET"]),
  ];
  return {
    missing,
    redirectUri: env.LINK_SESSION_REDIRECT_URI ?? null,
    reconnectUrl: env.PRODUCT_RECONNECT_URL ?? null,
    outbound,
    emails: outbound.mail !== null && env.PRODUCT_RECONNECT_URL !== undefined,
  };
}

export function reconnectSetup(): ReconnectSetup {
  return reconnectSetupFrom(getEnv());
}

/** Where requests go, in words for the page (hosts only: no path, which may hold a credential of the product's). */
export function describeDestinations(setup: ReconnectSetup): { webhook: string | null; mail: string | null } {
  return {
    webhook: setup.outbound.webhook ? new URL(setup.outbound.webhook.url).host : null,
    mail: setup.emails && setup.outbound.mail ? describeMailServer(setup.outbound.mail) : null,
  };
}

/** Why requests are off, in words for support (who cannot set variables, so it names who can and what). */
export function notConfiguredWords(missing: readonly string[]): string {
  return `Reconnect requests are off on this Linkdesk: an administrator must set ${missing.join(", ")} (docs/reconnect.md says what each is). Nothing was sent.`;
}
