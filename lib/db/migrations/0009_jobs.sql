CREATE TABLE "job_items" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "job_items_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"job_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"group_key" text,
	"link_id" text,
	"target_id" text,
	"input" jsonb NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"not_before" timestamp (3) with time zone,
	"lease_owner" text,
	"lease_until" timestamp (3) with time zone,
	"correlation_id" uuid,
	"upstream_status" integer,
	"upstream_error_code" text,
	"reason" text,
	"result" jsonb,
	"sent_at" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_items_state_check" CHECK ("job_items"."state" in ('pending', 'sent', 'done', 'failed', 'skipped', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"state" text DEFAULT 'running' NOT NULL,
	"title" text NOT NULL,
	"link_id" text,
	"params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"concurrency" integer DEFAULT 1 NOT NULL,
	"created_by" uuid NOT NULL,
	"created_by_email" text NOT NULL,
	"created_by_role" text NOT NULL,
	"undoes_job_id" uuid,
	"dedupe_key" text,
	"total" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "jobs_state_check" CHECK ("jobs"."state" in ('running', 'paused', 'cancelled', 'done'))
);
--> statement-breakpoint
ALTER TABLE "job_items" ADD CONSTRAINT "job_items_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "job_items_job_seq_idx" ON "job_items" USING btree ("job_id","seq");--> statement-breakpoint
CREATE INDEX "job_items_job_state_seq_idx" ON "job_items" USING btree ("job_id","state","seq");--> statement-breakpoint
CREATE INDEX "job_items_job_group_seq_idx" ON "job_items" USING btree ("job_id","group_key","seq");--> statement-breakpoint
CREATE INDEX "job_items_lease_owner_idx" ON "job_items" USING btree ("lease_owner");--> statement-breakpoint
CREATE INDEX "job_items_job_finished_idx" ON "job_items" USING btree ("job_id","finished_at");--> statement-breakpoint
CREATE INDEX "jobs_created_at_idx" ON "jobs" USING btree ("created_at" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "jobs_state_idx" ON "jobs" USING btree ("state");--> statement-breakpoint
CREATE INDEX "jobs_link_id_idx" ON "jobs" USING btree ("link_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_kind_dedupe_key_idx" ON "jobs" USING btree ("kind","dedupe_key");