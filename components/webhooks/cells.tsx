import type { WebhookOutcome, WebhookVerification } from "@/lib/db/schema";
import {
  isKnownWebhookKind,
  NOT_KNOWN_TO_LINKDESK,
  WEBHOOK_KINDS,
  WEBHOOK_OUTCOME_LABELS,
  WEBHOOK_OUTCOME_MEANINGS,
  WEBHOOK_OUTCOME_TONES,
  WEBHOOK_VERIFICATION_LABELS,
  WEBHOOK_VERIFICATION_MEANINGS,
  WEBHOOK_VERIFICATION_TONES,
} from "@/lib/webhooks/labels";

// Cells of a webhook event, shared by the Webhooks page's table and a link's events. Everything here came from the
// sender or the receiver's words: rendered as React text (escaped), never as HTML, one line each.

/** A kind in words, its name as sent on hover; a kind Linkdesk does not know shows as sent, marked so. */
export function KindCell({ event }: { event: string | null }) {
  if (event === null) return <span className="text-slate-500">—</span>;
  if (isKnownWebhookKind(event)) {
    return (
      <span className="text-slate-900" title={event}>
        {WEBHOOK_KINDS[event]}
      </span>
    );
  }
  return (
    <span className="inline-flex items-center gap-1.5" data-testid="unknown-kind">
      <span className="inline-block max-w-32 truncate align-bottom font-mono text-xs text-slate-800" title={event}>
        {event}
      </span>
      <span className="text-xs italic text-amber-800">{NOT_KNOWN_TO_LINKDESK}</span>
    </span>
  );
}

/** "signed 7 min before it arrived": how far outside the window a late delivery's signature is. */
export function lateText(signedAt: Date | null, receivedAt: Date): string {
  if (signedAt === null) return "signed outside the window";
  const seconds = Math.round((receivedAt.getTime() - signedAt.getTime()) / 1000);
  const span = Math.abs(seconds) < 120 ? `${Math.abs(seconds)} s` : `${Math.round(Math.abs(seconds) / 60)} min`;
  return seconds >= 0 ? `signed ${span} before it arrived` : `signed ${span} ahead of Linkdesk's clock`;
}

/**
 * Verified; signed late, with how late; or refused with the reason (cut to one line; whole on hover and in the
 * event's details).
 */
export function VerificationCell({
  verification,
  refusal,
  signedAt = null,
  receivedAt,
}: {
  verification: WebhookVerification;
  refusal: string | null;
  signedAt?: Date | null;
  receivedAt?: Date;
}) {
  return (
    <span className="inline-flex items-center gap-1.5">
      <span
        className={`chip ${WEBHOOK_VERIFICATION_TONES[verification]}`}
        title={WEBHOOK_VERIFICATION_MEANINGS[verification]}
      >
        {WEBHOOK_VERIFICATION_LABELS[verification]}
      </span>
      {verification === "late" && receivedAt ? (
        <span className="text-xs text-slate-700" data-testid="late-by">
          {lateText(signedAt, receivedAt)}
        </span>
      ) : null}
      {verification === "refused" ? (
        <span
          className="inline-block max-w-40 truncate align-bottom text-xs text-slate-700"
          title={refusal ?? undefined}
          data-testid="refusal-reason"
        >
          {refusal ?? "No reason recorded"}
        </span>
      ) : null}
    </span>
  );
}

/** The processing outcome in words; what processing did or why it failed on hover. */
export function OutcomeCell({ outcome, detail }: { outcome: WebhookOutcome; detail: string | null }) {
  return (
    <span
      className={`chip ${WEBHOOK_OUTCOME_TONES[outcome]}`}
      title={detail ? `${WEBHOOK_OUTCOME_MEANINGS[outcome]}. ${detail}` : WEBHOOK_OUTCOME_MEANINGS[outcome]}
    >
      {WEBHOOK_OUTCOME_LABELS[outcome]}
    </span>
  );
}

const times = (n: number, one: string, many: string) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

/** The upstream's delivery attempt, the redeliveries received after the first, and Linkdesk's processing tries. */
export function attemptsText(row: {
  verification: WebhookVerification;
  deliveryAttempt: number | null;
  redeliveries: number;
  processAttempts: number;
}): { short: string; long: string } {
  const short: string[] = [];
  const long: string[] = [];
  if (row.deliveryAttempt !== null) {
    short.push(`Delivery ${row.deliveryAttempt.toLocaleString("en")}`);
    long.push(`The upstream's delivery attempt ${row.deliveryAttempt.toLocaleString("en")}`);
  } else long.push("The upstream sent no delivery attempt");
  if (row.redeliveries > 0) {
    short.push(`${times(row.redeliveries, "redelivery", "redeliveries")}`);
    long.push(`received again ${times(row.redeliveries, "time", "times")} after the first`);
  }
  if (row.verification !== "refused") {
    short.push(row.processAttempts === 0 ? "not tried yet" : times(row.processAttempts, "try", "tries"));
    long.push(
      row.processAttempts === 0
        ? "not processed yet"
        : `processing tried ${times(row.processAttempts, "time", "times")}`,
    );
  }
  return { short: short.length > 0 ? short.join(" · ") : "—", long: `${long.join("; ")}.` };
}

export function AttemptsCell(props: Parameters<typeof attemptsText>[0]) {
  const { short, long } = attemptsText(props);
  return (
    <span className="tabular-nums text-slate-700" title={long}>
      {short}
    </span>
  );
}
