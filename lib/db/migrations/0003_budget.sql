CREATE TABLE "budget_closures" (
	"key" text PRIMARY KEY NOT NULL,
	"until" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "budget_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "budget_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" timestamp (3) with time zone NOT NULL,
	"endpoint" text NOT NULL,
	"retry_after" text,
	"scope_ids" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "budget_reservations" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "budget_reservations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"key" text NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"window_ms" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "budget_events_at_idx" ON "budget_events" USING btree ("at");--> statement-breakpoint
CREATE INDEX "budget_reservations_key_at_idx" ON "budget_reservations" USING btree ("key","at");