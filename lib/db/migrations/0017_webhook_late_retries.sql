ALTER TABLE "webhook_events" DROP CONSTRAINT "webhook_events_verification_check";--> statement-breakpoint
ALTER TABLE "webhook_events" DROP CONSTRAINT "webhook_events_outcome_check";--> statement-breakpoint
ALTER TABLE "links" ADD COLUMN "read_requested_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "signed_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "links_read_requested_idx" ON "links" USING btree ("read_requested_at") WHERE "links"."read_requested_at" is not null and ("links"."seen_at" is null or "links"."seen_at" < "links"."read_requested_at");--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_verification_check" CHECK ("webhook_events"."verification" in ('verified', 'late', 'refused'));--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_outcome_check" CHECK ("webhook_events"."outcome" in ('pending', 'processed', 'read_again', 'failed', 'unknown_kind', 'refused'));