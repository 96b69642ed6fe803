CREATE TABLE "link_snapshots" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "link_snapshots_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"total" integer NOT NULL,
	"by_state" jsonb NOT NULL,
	"by_error_code" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "links" (
	"link_id" text PRIMARY KEY NOT NULL,
	"created_at" timestamp (3) with time zone,
	"institution_id" text,
	"institution_name" text,
	"institution_avatar" text,
	"state" text,
	"error_code" text,
	"provider" text,
	"link_tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"raw" jsonb,
	"product_error_codes" text[] DEFAULT '{}'::text[] NOT NULL,
	"last_refreshed_at" timestamp (3) with time zone,
	"seen_at" timestamp (3) with time zone,
	"listed_at" timestamp (3) with time zone,
	"deleted_seen_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sync_state" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text,
	"heartbeat_at" timestamp (3) with time zone,
	"run_started_at" timestamp (3) with time zone,
	"run_finished_at" timestamp (3) with time zone,
	"phase" text DEFAULT 'idle' NOT NULL,
	"list_cursor" text,
	"total" integer DEFAULT 0 NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"requested_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE INDEX "link_snapshots_at_idx" ON "link_snapshots" USING btree ("at");--> statement-breakpoint
CREATE INDEX "links_state_idx" ON "links" USING btree ("state","link_id");--> statement-breakpoint
CREATE INDEX "links_error_code_idx" ON "links" USING btree ("error_code","link_id");--> statement-breakpoint
CREATE INDEX "links_institution_idx" ON "links" USING btree ("institution_id","link_id");--> statement-breakpoint
CREATE INDEX "links_provider_idx" ON "links" USING btree ("provider","link_id");--> statement-breakpoint
CREATE INDEX "links_created_at_idx" ON "links" USING btree ("created_at" DESC NULLS FIRST,"link_id");--> statement-breakpoint
CREATE INDEX "links_last_refreshed_idx" ON "links" USING btree ("last_refreshed_at","link_id");--> statement-breakpoint
CREATE INDEX "links_seen_at_idx" ON "links" USING btree ("seen_at");--> statement-breakpoint
CREATE INDEX "links_tags_idx" ON "links" USING gin ("link_tags");--> statement-breakpoint
CREATE INDEX "links_product_errors_idx" ON "links" USING gin ("product_error_codes");