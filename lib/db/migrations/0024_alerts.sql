CREATE TABLE "alerts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"rule" text NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"subject_label" text,
	"severity" text NOT NULL,
	"state" text DEFAULT 'open' NOT NULL,
	"summary" text NOT NULL,
	"links_query" text DEFAULT '' NOT NULL,
	"value" integer NOT NULL,
	"peak" integer NOT NULL,
	"threshold" integer NOT NULL,
	"opened_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp (3) with time zone,
	"acknowledged_by_email" text,
	"acknowledged_at" timestamp (3) with time zone,
	CONSTRAINT "alerts_state_check" CHECK ("alerts"."state" in ('open', 'resolved')),
	CONSTRAINT "alerts_severity_check" CHECK ("alerts"."severity" in ('critical', 'warning', 'info'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_open_idx" ON "alerts" USING btree ("rule","subject") WHERE "alerts"."state" = 'open';--> statement-breakpoint
CREATE INDEX "alerts_opened_at_idx" ON "alerts" USING btree ("opened_at" DESC NULLS FIRST);