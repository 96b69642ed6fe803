import "server-only";
import { type Env, getEnv } from "../env";

// Where outbound messages go, from the configuration (lib/env.ts): the product's webhook and its signing secret, and a
// mail server. Each is off unless configured. The secret and the mail server's password stay in this module's
// values: they are never written to a row, a log line or an answer.

export interface WebhookTarget {
  url: string;
  /** `whsec_…`, the Standard Webhooks signing secret. */
  secret: string;
}

export interface MailServer {
  /** An smtp:// or smtps:// URL, or a host and port with an optional sign-in. */
  server: string | { host: string; port: number; secure: boolean; auth?: { user: string; pass: string } };
  from: string;
}

export interface OutboundConfig {
  webhook: WebhookTarget | null;
  mail: MailServer | null;
  /** One try's limit: the receiver's answer, the mail server's. */
  timeoutMs: number;
}

type OutboundEnv = Pick<
  Env,
  | "PRODUCT_WEBHOOK_URL"
  | "PRODUCT_WEBHOOK_SECRET"
  | "SMTP_URL"
  | "SMTP_HOST"
  | "SMTP_PORT"
  | "SMTP_USER"
  | "SMTP_PASSWORD"
  | "SMTP_FROM"
  | "OUTBOUND_TIMEOUT_MS"
>;

/** The submission port: STARTTLS when the server offers it. */
const DEFAULT_SMTP_PORT = 587;
/** The port that speaks TLS from the first byte (SMTPS). */
const IMPLICIT_TLS_PORT = 465;

export function outboundConfigFrom(env: OutboundEnv): OutboundConfig {
  const webhook =
    env.PRODUCT_WEBHOOK_URL && env.PRODUCT_WEBHOOK_SECRET
      ? { url: env.PRODUCT_WEBHOOK_URL, secret: env.PRODUCT_WEBHOOK_SECRET }
      : null;
  let mail: MailServer | null = null;
  if (env.SMTP_FROM && env.SMTP_URL) mail = { server: env.SMTP_URL, from: env.SMTP_FROM };
  else if (env.SMTP_FROM && env.SMTP_HOST) {
    const port = env.SMTP_PORT ?? DEFAULT_SMTP_PORT;
    mail = {
      server: {
        host: env.SMTP_HOST,
        port,
        secure: port === IMPLICIT_TLS_PORT,
        ...(env.SMTP_USER && env.SMTP_PASSWORD ? { auth: { user: env.SMTP_USER, pass: env.SMTP_PASSWORD } } : {}),
      },
      from: env.SMTP_FROM,
    };
  }
  return { webhook, mail, timeoutMs: env.OUTBOUND_TIMEOUT_MS };
}

/** The dashboard's outbound configuration. */
export function outboundConfig(): OutboundConfig {
  return outboundConfigFrom(getEnv());
}

/** Where a mail server is, for the page and the log: its host and port, never who signs in or with what. */
export function describeMailServer(mail: MailServer): string {
  if (typeof mail.server !== "string") return `${mail.server.host}:${mail.server.port}`;
  const url = new URL(mail.server);
  return `${url.hostname}:${url.port || (url.protocol === "smtps:" ? IMPLICIT_TLS_PORT : DEFAULT_SMTP_PORT)}`;
}
