import { SMTPServer, type SMTPServerDataStream } from "smtp-server";

// Test support: a real mail server on loopback (smtp-server, the SMTP server of nodemailer's authors), that keeps what
// it accepts and can be told to refuse (5xx), defer (4xx) or never answer the next message. No TLS, no sign-in.

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as it came over the wire (headers and body). */
  raw: string;
  subject: string;
  /** The text body, quoted-printable undone. */
  text: string;
  messageId: string;
}

/** How the peer answers the end of one message's data. */
export type MailAnswer = "accept" | { code: number; message: string } | "nothing";

export interface SmtpPeer {
  /** Where to point SMTP_URL. */
  url: string;
  received: ReceivedMail[];
  /** The next messages get these answers, in order; after them, accepted. */
  answerNext(...answers: MailAnswer[]): void;
  close(): Promise<void>;
}

export async function startSmtpPeer(): Promise<SmtpPeer> {
  const received: ReceivedMail[] = [];
  const queued: MailAnswer[] = [];
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    onData(stream: SMTPServerDataStream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const answer = queued.shift() ?? "accept";
        if (answer === "nothing") return;
        if (answer !== "accept") {
          callback(Object.assign(new Error(answer.message), { responseCode: answer.code }));
          return;
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject: header(raw, "subject"),
          text: bodyText(raw),
          messageId: header(raw, "message-id"),
        });
        callback(null, "Message queued");
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.server.address();
  if (!address || typeof address === "string") throw new Error("the mail server has no port");
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    received,
    answerNext: (...answers) => queued.push(...answers),
    close: () =>
      new Promise<void>((resolve) => {
        for (const connection of server.connections) connection.close();
        server.close(() => resolve());
      }),
  };
}

/** One header's value, folded lines joined. */
function header(raw: string, name: string): string {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? "";
  const match = new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, "im").exec(head);
  return match ? match[1]!.replace(/\r?\n[ \t]+/g, " ").trim() : "";
}

/** The body of a single-part text message, quoted-printable decoded when it says so. */
function bodyText(raw: string): string {
  const split = raw.search(/\r?\n\r?\n/);
  const body = split < 0 ? "" : raw.slice(split).replace(/^\r?\n\r?\n/, "");
  if (!/content-transfer-encoding:\s*quoted-printable/i.test(raw.slice(0, split))) return body;
  const bytes = body
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}
