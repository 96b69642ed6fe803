CREATE TABLE "webhook_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_received_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"verification" text NOT NULL,
	"refusal" text,
	"source_address" text,
	"idempotency_key" text,
	"delivery_token" text,
	"delivery_attempt" integer,
	"kid" text,
	"event" text,
	"link_id" text,
	"event_at" timestamp (3) with time zone,
	"body" jsonb,
	"redeliveries" integer DEFAULT 0 NOT NULL,
	"outcome" text NOT NULL,
	"process_attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone,
	"processed_at" timestamp (3) with time zone,
	"detail" text,
	CONSTRAINT "webhook_events_verification_check" CHECK ("webhook_events"."verification" in ('verified', 'refused')),
	CONSTRAINT "webhook_events_outcome_check" CHECK ("webhook_events"."outcome" in ('pending', 'processed', 'failed', 'unknown_kind', 'refused'))
);
--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "learned_from" text;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "learned_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "event_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "transactions_changed_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_idempotency_key_idx" ON "webhook_events" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "webhook_events_received_idx" ON "webhook_events" USING btree ("received_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "webhook_events_pending_idx" ON "webhook_events" USING btree ("outcome","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_events_link_idx" ON "webhook_events" USING btree ("link_id","received_at" DESC NULLS LAST);--> statement-breakpoint
-- Links known before discovery was recorded: listed ones were learned from the listing, the rest from an answer.
UPDATE "links" SET "learned_from" = CASE WHEN "listed_at" IS NOT NULL THEN 'listing' ELSE 'upstream_answer' END,
  "learned_at" = coalesce("listed_at", "seen_at", "updated_at");
