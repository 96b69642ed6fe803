import "server-only";
import nodemailer from "nodemailer";
import { type AttemptResult, capitalized, describeNetworkError, errorCode, isTimeout } from "./attempt";
import { type MailServer, describeMailServer } from "./config";
import type { OutboundEmail } from "./message";

// One try of a message's email through the configured mail server (nodemailer's SMTP transport, one connection per
// try). The server's reply code decides what comes next: SMTP's 4xx means "not now" and the message is tried again;
// 5xx means "never" (no such mailbox, the sender refused) and it fails at once. No answer, a refused or dropped
// connection: tried again.

/** Sends `email` once; never throws: every outcome is an AttemptResult in words. */
export async function sendEmail(
  mail: MailServer,
  messageId: string,
  email: OutboundEmail,
  timeoutMs: number,
): Promise<AttemptResult> {
  const where = `the mail server (${describeMailServer(mail)})`;
  const startWhere = capitalized(where);
  const timeouts = { connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs };
  const transport =
    typeof mail.server === "string"
      ? nodemailer.createTransport({ url: mail.server, ...timeouts })
      : nodemailer.createTransport({ ...mail.server, ...timeouts });
  try {
    const sent = await transport.sendMail({
      from: mail.from,
      to: email.to,
      subject: email.subject,
      text: email.text,
      // The same on every try, so a mail client shows a message that arrived twice once.
      messageId: `<${messageId}@linkdesk>`,
      signal: AbortSignal.timeout(timeoutMs * 3),
    });
    const code = Number.parseInt(String(sent.response ?? ""), 10);
    return {
      outcome: "delivered",
      status: Number.isNaN(code) ? null : code,
      detail: `Accepted by ${where}${sent.response ? `: ${firstLine(sent.response)}` : ""}.`,
    };
  } catch (error) {
    // A refused sign-in is the configuration's to fix, not the message's: tried again, so it goes once it is fixed.
    if (errorCode(error) === "EAUTH")
      return {
        outcome: "retry",
        status: null,
        detail: `${startWhere} refused Linkdesk's sign-in: check SMTP_USER and SMTP_PASSWORD (or the user in SMTP_URL).`,
      };
    const reply = (error as { responseCode?: unknown }).responseCode;
    const response = (error as { response?: unknown }).response;
    if (typeof reply === "number") {
      const said = typeof response === "string" ? `: ${firstLine(response)}` : ` (${reply})`;
      return reply >= 500
        ? { outcome: "failed", status: reply, detail: `${startWhere} refused the message${said}.` }
        : { outcome: "retry", status: reply, detail: `${startWhere} deferred the message${said}.` };
    }
    const code = errorCode(error);
    if (!isTimeout(error) && code === "ETLS")
      return { outcome: "retry", status: null, detail: `${startWhere}: the TLS connection failed.` };
    return { outcome: "retry", status: null, detail: describeNetworkError(error, where, timeoutMs) };
  } finally {
    transport.close();
  }
}

/** A server's reply as one short line (replies may run over several lines, and quote the address). */
function firstLine(text: string): string {
  const line = text.split(/\r?\n/)[0]!.trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
