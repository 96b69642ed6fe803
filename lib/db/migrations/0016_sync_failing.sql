ALTER TABLE "sync_state" ADD COLUMN "failing_since" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "sync_state" ADD COLUMN "failure" text;--> statement-breakpoint
ALTER TABLE "sync_state" ADD COLUMN "retry_ms" integer;