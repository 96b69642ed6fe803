CREATE TABLE "bulk_jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"link_id" text NOT NULL,
	"created_by" uuid NOT NULL,
	"created_by_email" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"total" integer NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"payload" jsonb NOT NULL,
	"eta" timestamp (3) with time zone,
	"last_error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bulk_jobs_status_check" CHECK ("bulk_jobs"."status" in ('running', 'done'))
);
--> statement-breakpoint
CREATE INDEX "bulk_jobs_created_by_idx" ON "bulk_jobs" USING btree ("created_by","created_at");